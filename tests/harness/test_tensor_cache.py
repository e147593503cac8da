"""The per-worker tensor caches (inputs, reference outputs): hits on identical inputs, misses on
other inputs, tamper detection, LRU eviction by bytes, and their use by evaluate()."""

from __future__ import annotations

import pytest
import torch
from harness_helpers import DEVICE, fixture_solution, rmsnorm_request

from kernelopt.data import EvaluationStatus as S
from kernelopt.harness import workload_run
from kernelopt.harness.evaluate import evaluate
from kernelopt.harness.tensor_cache import TensorCache, fingerprint


def _inputs(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    return {"x": torch.randn(4, 8, generator=g), "eps": 1e-6}


def test_hit_miss_and_inputs_check():
    cache = TensorCache(1 << 20)
    a, b = _inputs(0), _inputs(1)
    out = {"y": a["x"] * 2}
    assert cache.get("k", fingerprint(a)) is None
    cache.put("k", fingerprint(a), out)
    assert cache.get("k", fingerprint(a)) is out
    assert cache.get("k", fingerprint(b)) is None  # same key, different inputs: never served
    assert (cache.hits, cache.misses) == (1, 2)


def test_fingerprint_sees_values_nans_shapes_and_scalars():
    x = torch.ones(3)
    assert fingerprint({"x": x}) != fingerprint({"x": torch.ones(4)})
    y = x.clone()
    y[1] = float("nan")
    assert fingerprint({"x": x}) != fingerprint({"x": y})
    assert fingerprint({"x": x, "s": 1.0}) != fingerprint({"x": x, "s": 2.0})
    assert fingerprint({"i": torch.arange(5)}) == fingerprint({"i": torch.arange(5)})


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32, torch.float8_e4m3fn, torch.int8, torch.bool,
                                   torch.int32])
@pytest.mark.parametrize("numel", [1, 7, 4099])
def test_fingerprint_sees_one_changed_element_of_any_dtype_and_size(dtype, numel):
    g = torch.Generator().manual_seed(numel)
    x = (torch.randn(numel, generator=g) * 3).to(dtype)
    for i in {0, numel // 2, numel - 1}:
        y = x.clone()
        y.view(torch.uint8)[i * y.element_size()] ^= 1  # one bit of element i
        assert fingerprint([x]) != fingerprint([y]), (dtype, numel, i)
    assert fingerprint([x]) == fingerprint([x.clone()])
    assert fingerprint([x[::2]]) == fingerprint([x[::2].contiguous()])  # strided views by value


def test_fingerprint_is_bit_exact():
    assert fingerprint([torch.tensor([0.0])]) != fingerprint([torch.tensor([-0.0])])
    a, b = torch.tensor([float("nan")]), torch.tensor([float("nan")])
    b.view(torch.int32)[0] += 1  # another NaN payload
    assert torch.isnan(b).all() and fingerprint([a]) != fingerprint([b])
    assert fingerprint([torch.empty(0, 3)]) != fingerprint([torch.empty(3, 0)])


def test_outputs_written_after_storing_are_detected_and_dropped():
    cache = TensorCache(1 << 20)
    a = _inputs(0)
    out = {"y": a["x"].clone()}
    cache.put("k", fingerprint(a), out)
    out["y"][0, 0] += 1.0  # e.g. a candidate in the same process writing into the cached tensor
    assert cache.get("k", fingerprint(a)) is None
    assert cache.tampered == 1 and len(cache) == 0


def test_lru_eviction_by_bytes_and_oversized_entries():
    one = {"y": torch.zeros(256)}  # 1 KiB
    cache = TensorCache(2 * 1024)
    fp = fingerprint(_inputs(0))
    cache.put("a", fp, one)
    cache.put("b", fp, {"y": torch.zeros(256)})
    assert cache.get("a", fp) is one  # "a" is now the most recently used
    cache.put("c", fp, {"y": torch.zeros(256)})
    assert cache.get("b", fp) is None and cache.get("a", fp) is one and cache.get("c", fp) is not None
    cache.put("big", fp, {"y": torch.zeros(4096)})  # larger than the budget: not stored
    assert cache.get("big", fp) is None and len(cache) == 2
    off = TensorCache(0)
    off.put("a", fp, one)
    assert len(off) == 0


@pytest.fixture(autouse=True)
def _builds(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path / "builds"))


def test_evaluate_reuses_inputs_and_reference_outputs_for_the_next_candidate():
    workload_run._CACHES.clear()
    first = evaluate(rmsnorm_request(fixture_solution("rmsnorm_triton_ok"), batch_sizes=(1,)), device=DEVICE)
    cache, inputs = workload_run._CACHES.get("reference"), workload_run._CACHES.get("inputs")
    assert first.all_passed and cache is not None and len(cache) >= 2  # one entry per trial (+ probe)
    assert inputs is not None and len(inputs) == len(cache)
    hits, input_hits = cache.hits, inputs.hits
    second = evaluate(rmsnorm_request(fixture_solution("rmsnorm_py_value"), batch_sizes=(1,)), device=DEVICE)
    assert second.all_passed, [r.log for r in second.results]
    assert cache.hits >= hits + 2 and inputs.hits >= input_hits + 2
    # a wrong candidate is still judged against the (cached) reference
    bad = evaluate(rmsnorm_request(fixture_solution("rmsnorm_triton_no_weight"), batch_sizes=(1,)), device=DEVICE)
    assert bad.results[0].status == S.INCORRECT_NUMERICAL


def test_caches_can_be_turned_off():
    workload_run._CACHES.clear()
    res = evaluate(rmsnorm_request(fixture_solution("rmsnorm_triton_ok"), batch_sizes=(1,), reference_cache_mb=0,
                                   input_cache_mb=0), device=DEVICE)
    assert res.all_passed and workload_run._CACHES == {}


def test_a_candidate_mutating_its_inputs_never_reaches_the_cached_copy():
    workload_run._CACHES.clear()
    bad = evaluate(rmsnorm_request(fixture_solution("rmsnorm_py_mutates"), batch_sizes=(1,)), device=DEVICE)
    assert bad.results[0].status == S.REJECTED
    good = evaluate(rmsnorm_request(fixture_solution("rmsnorm_triton_ok"), batch_sizes=(1,)), device=DEVICE)
    assert good.all_passed and workload_run._CACHES["inputs"].tampered == 0
