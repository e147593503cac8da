"""The ``local`` executor on real GPUs: one persistent worker per GPU, CUDA-context poisoning."""

from __future__ import annotations

import pytest
from executor_helpers import HARNESS_FIXTURES, executor_solution, rmsnorm_request, statuses

from kernelopt.executor import IsolatedExecutor, LocalExecutor, make_executor, visible_gpus

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not visible_gpus(), reason="needs a CUDA GPU")]

TRITON_OK = "rmsnorm_triton_ok"


def test_local_executor_spreads_requests_over_every_gpu(build_cache_env):
    sol = executor_solution(TRITON_OK, root=HARNESS_FIXTURES)
    batches = (1, 7, 16, 34, 63, 64, 79, 170)
    with make_executor("auto", env=build_cache_env) as ex:
        assert ex.kind == "local" and len(ex.devices) == len(visible_gpus())
        results = ex.evaluate_many([rmsnorm_request(sol, batch_sizes=(b,), warmup=2, iterations=5, trials=2)
                                    for b in batches])
    assert [r.results[0].axes["batch_size"] for r in results] == list(batches)
    assert all(r.all_passed for r in results), [r.results[0].log for r in results]
    assert {r.timer for r in results} <= {"cupti", "cuda_event"}
    used = {r.environment["executor"]["device"] for r in results}
    assert used == set(ex.devices) or len(used) == min(len(batches), len(ex.devices))


def test_illegal_memory_access_replaces_the_worker_and_the_next_request_works(build_cache_env):
    good = executor_solution(TRITON_OK, root=HARNESS_FIXTURES)
    bad = executor_solution("gpu_illegal_access")
    with LocalExecutor(devices=[0], env=build_cache_env) as ex:
        assert ex.evaluate(rmsnorm_request(good)).all_passed
        pid = ex.pool.slots[0].worker.pid
        res = ex.evaluate(rmsnorm_request(bad, batch_sizes=(7, 1)))
        assert statuses(res) == ["RUNTIME_ERROR", "RUNTIME_ERROR"], [r.log[-600:] for r in res.results]
        assert "illegal memory access" in res.results[0].log.lower()
        assert len(res.environment["executor"]["worker_pids"]) == 2  # the second workload got a fresh worker
        after = ex.evaluate(rmsnorm_request(good, batch_sizes=(7, 16)))
        assert after.all_passed, [r.log for r in after.results]
        assert ex.pool.slots[0].worker.pid != pid


def test_isolated_on_gpu_agrees_with_local(build_cache_env):
    req = rmsnorm_request(executor_solution("mixed"), batch_sizes=(7, 34, 1))
    with LocalExecutor(devices=[0], env=build_cache_env) as ex:
        local = ex.evaluate(req)
    with IsolatedExecutor(env=build_cache_env) as iso:
        isolated = iso.evaluate(req)
    assert statuses(local) == statuses(isolated) == ["PASSED", "RUNTIME_ERROR", "INCORRECT_NUMERICAL"]


def test_gpu_memory_exhaustion_is_a_runtime_error_and_the_worker_recovers(build_cache_env):
    good = executor_solution(TRITON_OK, root=HARNESS_FIXTURES)
    hog = executor_solution("gpu_memory_hog")
    with LocalExecutor(devices=[0], env=build_cache_env) as ex:
        assert ex.evaluate(rmsnorm_request(good)).all_passed
        pid = ex.pool.slots[0].worker.pid
        res = ex.evaluate(rmsnorm_request(hog, batch_sizes=(7,)))
        assert statuses(res) == ["RUNTIME_ERROR"], [r.log[-600:] for r in res.results]
        assert "out of memory" in res.results[0].log.lower()
        after = ex.evaluate(rmsnorm_request(good, batch_sizes=(7, 16)))  # a fresh worker: memory given back
        assert after.all_passed, [r.log for r in after.results]
        assert ex.pool.slots[0].worker.pid != pid
