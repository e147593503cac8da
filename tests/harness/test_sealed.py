"""Sealed reference outputs (kernelopt.harness.sealed): the round trip, what is left in memory, the cache."""

from __future__ import annotations

import pytest
import torch

from kernelopt.harness.sealed import Sealed, scrub, seal
from kernelopt.harness.tensor_cache import TensorCache


def _value():
    g = torch.Generator().manual_seed(0)
    return {"output": torch.randn(3, 5, generator=g).to(torch.bfloat16),
            "state": torch.randn(2, 4, 4, generator=g),
            "idx": torch.arange(7, dtype=torch.int64).reshape(7, 1)[::2],  # not contiguous
            "mask": torch.tensor([True, False, True]),
            "scalar": torch.tensor(2.5),
            "empty": torch.empty(0, 4)}


def test_round_trip_keeps_names_values_dtypes_and_shapes():
    plain = _value()
    kept = {k: v.clone() for k, v in plain.items()}
    sealed = seal(plain)
    opened = sealed.open()
    assert list(opened) == list(kept)
    for k, v in kept.items():
        assert opened[k].dtype == v.dtype and opened[k].shape == v.shape and torch.equal(opened[k], v), k


def test_lists_single_tensors_and_other_values():
    t = torch.linspace(-1, 1, 9)
    assert torch.equal(seal(t.clone()).open(), t)
    opened = seal([t.clone(), 3, None], scrub_plain=False).open()
    assert torch.equal(opened[0], t) and opened[1:] == [3, None]


def test_nothing_equal_to_the_plain_value_is_left_in_memory():
    plain = _value()
    kept = {k: v.clone() for k, v in plain.items()}
    sealed = seal(plain)
    assert not any(v.any() for v in plain.values())  # the caller's tensors were scrubbed (views too)
    for masked, (k, v) in zip(sealed, kept.items()):  # sealed bytes: flat uint8, not the plain bytes
        assert masked.dtype == torch.uint8 and masked.dim() == 1
        if v.numel() > 2:
            assert not torch.equal(masked, v.contiguous().reshape(-1).view(torch.uint8)), k
    with sealed.opened() as opened:
        assert torch.equal(opened["output"], kept["output"])
    assert not opened["output"].any()  # scrubbed after the comparison


def test_each_seal_draws_its_own_mask():
    t = torch.randn(64)
    a, b = seal(t.clone()), seal(t.clone())
    assert not torch.equal(a[0], b[0]) and torch.equal(a.open(), b.open())


def test_the_tensor_cache_fingerprints_the_sealed_bytes():
    cache = TensorCache(1 << 20)
    sealed = seal(_value())
    cache.put("k", (), sealed)
    got = cache.get("k")
    assert isinstance(got, Sealed) and torch.equal(got.open()["state"], sealed.open()["state"])
    got[1].add_(1)  # written into: the entry is dropped
    assert cache.get("k") is None and cache.tampered == 1


def test_scrub_leaves_broadcast_views_alone():
    base = torch.ones(4)
    scrub({"b": base.expand(3, 4), "a": base})
    assert not base.any()


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_round_trip_on_the_gpu():
    plain = {k: v.cuda() for k, v in _value().items()}
    kept = {k: v.clone() for k, v in plain.items()}
    sealed = seal(plain)
    assert all(m.is_cuda for m in sealed)
    with sealed.opened() as opened:
        for k, v in kept.items():
            assert opened[k].is_cuda and opened[k].dtype == v.dtype and torch.equal(opened[k], v), k
    assert not any(v.any() for v in plain.values())
