"""The ``local`` executor on real GPUs: one persistent worker per GPU, CUDA-context poisoning."""

from __future__ import annotations

import pytest
from executor_helpers import HARNESS_FIXTURES, executor_solution, rmsnorm_request, statuses

from kernelopt.executor import IsolatedExecutor, LocalExecutor, make_executor, visible_gpus
from kernelopt.harness.builders import KEEP_BUILT_ENV

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


def _gpu0_mib() -> int:
    """The first visible GPU's memory (MiB) from nvidia-smi (this process initialises no CUDA)."""
    import subprocess

    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits", "-i",
                          visible_gpus()[0]],
                         capture_output=True, text=True, timeout=30, check=False)
    return int(out.stdout.split()[0]) if out.returncode == 0 and out.stdout.split() else 0


@pytest.mark.skipif(visible_gpus() and _gpu0_mib() < 40 << 10, reason="needs a GPU of 40 GiB or more")
def test_a_released_solution_gives_its_gpu_memory_back(build_cache_env):
    """Each census holds 12 GiB on the GPU in a module global and fails once more than 20 GiB are allocated in its
    worker: with executor.keep_built=1 building the next solution releases the last one's buffer, so all pass;
    keeping three, the second already sees 24 GiB (the check can fail)."""
    def census(tag: str):
        return executor_solution("module_census", TAG=tag, MAX="99", HOLD_MB=str(12 << 10), GPU_MB=str(20 << 10))

    with LocalExecutor(devices=[0], env={**build_cache_env, KEEP_BUILT_ENV: "1"}) as ex:
        released = ex.evaluate_many([rmsnorm_request(census(t)) for t in "abc"])
    assert [statuses(r) for r in released] == [["PASSED"]] * 3, [r.results[0].log[-1500:] for r in released]
    with LocalExecutor(devices=[0], env={**build_cache_env, KEEP_BUILT_ENV: "3"}) as ex:
        kept = ex.evaluate_many([rmsnorm_request(census(t + "k")) for t in "ab"])
    assert [statuses(r) for r in kept] == [["PASSED"], ["INCORRECT_NUMERICAL"]]
