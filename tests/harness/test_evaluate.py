"""End-to-end evaluate() on rmsnorm_h4096 with fixture solutions (CPU: Triton interpreter)."""

from __future__ import annotations

import math
import signal
import time

import pytest
from harness_helpers import DEVICE, fixture_solution, rmsnorm_request

from kernelopt.data import EvaluationStatus as S
from kernelopt.data import Solution
from kernelopt.harness.evaluate import evaluate


def _run(name: str, *batch_sizes: int):
    return evaluate(rmsnorm_request(fixture_solution(name), batch_sizes=batch_sizes), device=DEVICE)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path / "builds"))


def test_correct_triton_solution_passes_with_latency_stats():
    res = _run("rmsnorm_triton_ok", 1, 7)
    assert [r.status for r in res.results] == [S.PASSED, S.PASSED], [r.log for r in res.results]
    for r in res.results:
        assert r.max_rel_error is not None and r.max_rel_error <= 1e-2
        lat = r.latency
        assert lat is not None and len(lat.trial_medians_ms) == 2
        assert lat.mean_ms == pytest.approx(sum(lat.trial_medians_ms) / 2)
        assert lat.ci95_low_ms <= lat.mean_ms <= lat.ci95_high_ms
        assert r.reference_latency is not None
        assert r.speedup == pytest.approx(r.reference_latency.mean_ms / lat.mean_ms)
    assert res.timer == ("cpu_wall" if DEVICE == "cpu" else res.timer)
    assert res.environment["libs"]["torch"] and res.environment["hardware"]
    assert res.solution_hash == fixture_solution("rmsnorm_triton_ok").hash()
    assert res.all_passed and res.wall_s > 0


def test_solution_forgetting_the_weight_is_incorrect_numerical():
    res = _run("rmsnorm_triton_no_weight", 1)
    r = res.results[0]
    assert r.status == S.INCORRECT_NUMERICAL
    assert r.max_abs_error > 1e-2 and r.latency is None
    assert "matched ratio" in r.log


def test_half_written_output_fails_through_poison():
    res = _run("rmsnorm_triton_half_write", 1)
    r = res.results[0]
    assert r.status == S.INCORRECT_NUMERICAL
    assert math.isnan(r.max_abs_error)
    assert "NaN" in r.log


def test_input_mutation_is_rejected():
    res = _run("rmsnorm_py_mutates", 1)
    r = res.results[0]
    assert r.status == S.REJECTED
    assert "input mutation" in r.log and "hidden_states" in r.log


def test_syntax_error_is_compile_error_on_every_workload_with_the_log():
    res = _run("rmsnorm_py_syntax", 1, 7)
    assert [r.status for r in res.results] == [S.COMPILE_ERROR, S.COMPILE_ERROR]
    assert "SyntaxError" in res.build_log and "main.py" in res.build_log
    assert "SyntaxError" in res.results[0].log


def test_wrong_signature_is_compile_error_naming_the_expected_count():
    res = _run("rmsnorm_py_bad_signature", 1)
    assert res.results[0].status == S.COMPILE_ERROR
    assert "Destination-passing style callable: expected 3 positional parameters" in res.build_log


def test_wrong_output_dtype_is_incorrect_dtype():
    res = _run("rmsnorm_py_wrong_dtype", 1)
    assert res.results[0].status == S.INCORRECT_DTYPE
    assert "float32" in res.results[0].log


def test_value_returning_python_solution_passes():
    res = _run("rmsnorm_py_value", 1, 7)
    assert res.all_passed, [r.log for r in res.results]
    assert all(r.max_rel_error <= 1e-2 for r in res.results)


def test_tensor_subclass_output_is_rejected():
    res = _run("rmsnorm_py_subclass", 1)
    assert res.results[0].status == S.REJECTED
    assert "LazyTensor" in res.results[0].log


def test_exception_is_runtime_error_with_traceback_and_output():
    res = _run("rmsnorm_py_raises", 1)
    r = res.results[0]
    assert r.status == S.RUNTIME_ERROR
    assert "IndexError" in r.log and "deliberate" in r.log and "Traceback" in r.log
    assert "about to fail" in r.log


_RAISES_ON_BATCH_1 = """import os, signal, torch
CALLS = [0]

def run(hidden_states, weight, eps=1e-5):
    if hidden_states.shape[0] == 1:
        CALLS[0] += 1
        if CALLS[0] > __AFTER__:
            __DO__
    x = hidden_states.float()
    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(hidden_states.dtype)
"""


def _raising(do: str, after: int = 0):
    meta = fixture_solution("rmsnorm_py_value").model_dump(mode="json")
    code = _RAISES_ON_BATCH_1.replace("__DO__", do).replace("__AFTER__", str(after))
    return Solution.model_validate({**meta, "name": f"raises_{abs(hash(code))}",
                                    "sources": [{"path": "main.py", "content": code}]})


@pytest.mark.parametrize("do", ["raise KeyboardInterrupt('from the kernel')", "raise SystemExit(3)"])
@pytest.mark.parametrize("after", [0, 1])  # in the correctness call; in the timed calls
def test_keyboard_interrupt_or_exit_from_a_candidate_is_its_runtime_error(do, after):
    req = rmsnorm_request(_raising(do, after), batch_sizes=(1, 7), trials=1, same_address_probe=False)
    res = evaluate(req, device=DEVICE)
    assert [r.status for r in res.results] == [S.RUNTIME_ERROR, S.PASSED], [r.log for r in res.results]
    assert ("timing the solution failed" in res.results[0].log) == bool(after)
    assert ("KeyboardInterrupt: from the kernel" if "Keyboard" in do else "SystemExit: 3") in res.results[0].log


def test_ctrl_c_during_a_candidate_call_stops_the_evaluation():
    req = rmsnorm_request(_raising("os.kill(os.getpid(), signal.SIGINT); [i for i in range(10**6)]"),
                          batch_sizes=(1, 7))
    with pytest.raises(KeyboardInterrupt):
        evaluate(req, device=DEVICE)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the harness's note is gone

def test_timer_monkey_patching_is_rejected():
    real = time.perf_counter
    try:
        res = evaluate(rmsnorm_request(fixture_solution("rmsnorm_py_patches_timer"), batch_sizes=(1,)),
                       device=DEVICE)
    finally:
        time.perf_counter = real
    assert res.results[0].status == S.REJECTED
    assert "time.perf_counter" in res.results[0].log


def test_results_round_trip_to_traces():
    sol = fixture_solution("rmsnorm_py_value")
    req = rmsnorm_request(sol, batch_sizes=(1,), time_reference=False)
    res = evaluate(req, device=DEVICE)
    assert res.results[0].reference_latency is None and res.results[0].speedup is None
    traces = res.to_traces(req.definition, req.workloads, "2026-01-01T00:00:00")
    assert traces[0].evaluation.status == S.PASSED
    assert traces[0].evaluation.performance.latency_ms == res.results[0].latency.mean_ms


def test_environment_snapshot_names_hardware_and_libraries():
    from kernelopt.harness.environment import snapshot

    env = snapshot(DEVICE)
    assert env["hardware"] and env["libs"]["python"] and env["libs"]["torch"]
    assert env["device"].startswith(DEVICE)


@pytest.mark.gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="needs a CUDA GPU")
def test_gpu_evaluation_uses_the_official_timer_and_records_the_gpu():
    from kernelopt.harness.cupti_timer import cupti_available

    res = evaluate(rmsnorm_request(fixture_solution("rmsnorm_triton_ok"), batch_sizes=(7, 170),
                                   warmup=5, iterations=20, trials=3), device="cuda:0")
    assert res.all_passed, [r.log for r in res.results]
    assert res.timer == ("cupti" if cupti_available() else "cuda_event")
    assert res.environment["gpu"]["sm_count"] > 0 and "after" in res.environment
    for r in res.results:
        assert 0.0005 < r.latency.mean_ms < 1.0  # a 4096-wide row norm is microseconds on a GPU
        assert r.speedup > 0


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(DEVICE != "cuda", reason="needs a CUDA GPU")
def test_cuda_torch_extension_solution_passes_on_gpu():
    res = _run("rmsnorm_cuda_torch", 1, 170)
    assert res.all_passed, res.build_log + "\n".join(r.log for r in res.results)
