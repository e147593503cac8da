"""Isolated mode (fresh process per workload) against the persistent worker, and partial results
surviving a crash in the middle of a request."""

from __future__ import annotations

from executor_helpers import executor_solution, rmsnorm_request, statuses

from kernelopt.executor import IsolatedExecutor, make_executor

# batch 7 passes, batch 34 kills the worker (exit code 5), batch 1 is numerically wrong
MIXED_BATCHES = (7, 34, 1)
EXPECTED = ["PASSED", "RUNTIME_ERROR", "INCORRECT_NUMERICAL"]


def test_crash_on_second_workload_keeps_the_first_and_resumes_the_rest(cpu_executor):
    req = rmsnorm_request(executor_solution("mixed"), batch_sizes=MIXED_BATCHES)
    res = cpu_executor.evaluate(req)
    assert statuses(res) == EXPECTED, [r.log[-400:] for r in res.results]
    first, crashed, third = res.results
    assert first.latency is not None and first.max_abs_error is not None  # kept from the dead worker
    assert "exit code 5" in crashed.log and crashed.extra["executor_fault"] == "crash"
    assert third.max_abs_error is not None and third.max_abs_error > 0.1
    info = res.environment["executor"]
    assert info["faults"] == 1 and len(info["worker_pids"]) == 2  # resumed on a fresh worker
    assert cpu_executor.evaluate(rmsnorm_request(executor_solution("good"))).all_passed


def test_isolated_mode_gives_the_same_verdicts_as_the_persistent_worker(cpu_executor, build_cache_env):
    req = rmsnorm_request(executor_solution("mixed"), batch_sizes=MIXED_BATCHES)
    persistent = cpu_executor.evaluate(req)
    with IsolatedExecutor(cpu=True, workers=2, env=build_cache_env) as iso:
        isolated = iso.evaluate(req)
    assert statuses(isolated) == statuses(persistent) == EXPECTED
    assert [r.uuid for r in isolated.results] == [w.uuid for w in req.workloads]
    info = isolated.environment["executor"]
    assert info["kind"] == "isolated"
    assert len(set(info["worker_pids"])) == 3  # one fresh process per workload
    assert isolated.solution_hash == req.solution.hash()


def test_make_executor_auto_picks_cpu_without_a_gpu(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    ex = make_executor("auto")
    try:
        assert ex.kind == "cpu" and ex.devices == ["cpu"]
        assert ex.pool.slots[0].spec.env["TRITON_INTERPRET"] == "1"
        assert ex.pool.slots[0].spec.memory_limit_gb == 16.0
    finally:
        ex.close()
