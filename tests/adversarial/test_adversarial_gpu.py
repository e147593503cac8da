"""GPU-only cheats: skipped launches (CUPTI kernel-set check), roofline floor, side-stream work.

The whole CPU corpus (``test_adversarial_corpus.py``) also runs on CUDA when a GPU is present;
these add what only a GPU can show. Skipped cleanly without CUDA.
"""

from __future__ import annotations

import pytest
import torch
from adversarial_helpers import corpus_solution, request_for

from kernelopt.data import EvaluationStatus as S
from kernelopt.harness.cupti_timer import cupti_available
from kernelopt.harness.evaluate import evaluate

pytestmark = pytest.mark.gpu
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _one(res):
    (r,) = res.results
    return r


@needs_cuda
@pytest.mark.skipif(not torch.cuda.is_available() or not cupti_available(), reason="needs cupti-python >= 13")
def test_skipped_launches_fail_the_cupti_kernel_set_check():
    sol = corpus_solution("gpu_cheats", "skip_launches")
    # the same-address probe would reject it first; turn it off to exercise the CUPTI check
    r = _one(evaluate(request_for(sol, (7,), timer="cupti", same_address_probe=False), device="cuda"))
    assert r.status == S.RUNTIME_ERROR and ("No kernel activities" in r.log or "Inconsistent kernel" in r.log), r.log
    r = _one(evaluate(request_for(sol, (7,), timer="cupti"), device="cuda"))
    assert r.status == S.REJECTED and "same-address probe" in r.log, r.log


@needs_cuda
def test_cached_gemm_is_below_the_memory_roofline():
    from kernelopt.harness.roofline_floor import device_peak_bandwidth

    if device_peak_bandwidth(torch.device("cuda")) is None:
        pytest.skip(f"no datasheet bandwidth for {torch.cuda.get_device_name()}")
    sol = corpus_solution("gpu_cheats", "gemm_cached")
    r = _one(evaluate(request_for(sol, (256,), timer="cuda_event", static_policy="off", same_address_probe=False,
                                  warmup=2, iterations=10), device="cuda"))
    assert r.status == S.REJECTED and "faster than the memory roofline" in r.log, r.log
    assert r.extra["roofline_floor_ms"] > 0


@needs_cuda
@pytest.mark.skipif(not torch.cuda.is_available() or not cupti_available(), reason="needs cupti-python >= 13")
def test_side_stream_work_is_counted_by_cupti():
    side = _one(evaluate(request_for(corpus_solution("gpu_cheats", "side_stream"), (7,), timer="cupti"),
                         device="cuda"))
    assert side.status == S.PASSED, side.log  # correct: the harness synchronises the device
    honest = _one(evaluate(request_for(corpus_solution("honest", "py_dps"), (7,), timer="cupti"), device="cuda"))
    # 20 repetitions of the work on the side stream are all inside the CUPTI window
    assert side.latency.mean_ms > 5 * honest.latency.mean_ms, (side.latency, honest.latency)
