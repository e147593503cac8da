"""Counter-based draws (kernelopt.harness.device_random): distributions, determinism, chunking."""

from __future__ import annotations

import pytest
import torch

from kernelopt.harness import device_random as dr


def _g(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_normal_moments_and_quantiles_match_randn() -> None:
    x = dr.normal((1 << 20,), _g())
    assert x.dtype == torch.float32
    assert abs(float(x.mean())) < 0.005 and abs(float(x.std()) - 1) < 0.005
    q = torch.tensor([0.01, 0.1, 0.5, 0.9, 0.99])
    expected = torch.special.ndtri(q.double()).float()
    assert torch.allclose(torch.quantile(x[: 1 << 18], q), expected, atol=0.02)
    assert float(x.abs().max()) < 5.0  # table tails at +-4.9


def test_same_generator_state_same_bits_new_state_new_bits() -> None:
    a, b = dr.normal((1000,), _g(1), dtype=torch.bfloat16), dr.normal((1000,), _g(1), dtype=torch.bfloat16)
    assert torch.equal(a.view(torch.int16), b.view(torch.int16))
    g = _g(1)
    first, second = dr.normal((1000,), g), dr.normal((1000,), g)  # one key per tensor
    assert not torch.equal(first, second) and not torch.equal(first, dr.normal((1000,), _g(2)))


def test_element_depends_on_key_and_index_only() -> None:
    key = 123456789123
    whole = dr.bits(0, 5000, key, "cpu")
    assert torch.equal(whole[1000:3000], dr.bits(1000, 2000, key, "cpu"))
    high = dr.bits((1 << 32) - 2, 4, key, "cpu")  # indices past 2^32 differ from the low ones
    assert not torch.equal(high[2:], whole[:2])
    assert len(set(whole.tolist())) == 5000  # SplitMix64 is a bijection of the 64-bit counter
    t = dr.top(whole, 32)
    assert int(t.min()) >= 0 and int(t.max()) < 1 << 32 and int(t.max()) > 3 << 30  # all 32 bits used
    assert not torch.equal(whole, dr.bits(0, 5000, key + 1, "cpu"))


def test_chunked_fill_equals_one_piece(monkeypatch) -> None:
    one = dr.normal((3, 1000), _g(7))
    monkeypatch.setattr(dr, "_CHUNK", 256)
    assert torch.equal(one, dr.normal((3, 1000), _g(7)))


def test_uniform_integers_and_fp8() -> None:
    u = dr.uniform((100_000,), _g())
    assert u.dtype == torch.float32 and float(u.min()) >= 0 and float(u.max()) < 1
    assert abs(float(u.mean()) - 0.5) < 0.01
    i = dr.integers((100_000,), -128, 128, _g(), dtype=torch.int8)
    assert i.dtype == torch.int8 and int(i.min()) == -128 and int(i.max()) == 127
    counts = torch.bincount((i.long() + 128), minlength=256).float()
    assert float(counts.std() / counts.mean()) < 0.1
    with pytest.raises(ValueError, match="power of two"):
        dr.integers((4,), 0, 3, _g())
    f8 = dr.fp8((5, 7), "float8_e4m3fn", _g())
    assert f8.dtype == torch.float8_e4m3fn and f8.shape == (5, 7)
    assert float(f8.float().abs().max()) <= 2.0


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_gpu_draws_equal_cpu_draws() -> None:
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        assert torch.equal(dr.normal((4097, 3), _g(3), "cuda", dtype).cpu(), dr.normal((4097, 3), _g(3), "cpu", dtype))
    assert torch.equal(dr.uniform((999,), _g(4), "cuda").cpu(), dr.uniform((999,), _g(4)))
    assert torch.equal(dr.fp8((999,), "float8_e5m2", _g(5), "cuda").cpu().view(torch.uint8),
                       dr.fp8((999,), "float8_e5m2", _g(5)).view(torch.uint8))
