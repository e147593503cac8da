"""The CPU executor end to end: real worker subprocesses running the real harness on rmsnorm_h4096,
with candidates that hang, exit, segfault, shout, fork, snoop and hog memory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from executor_helpers import HARNESS_FIXTURES, executor_solution, process_gone, rmsnorm_request, statuses

from kernelopt.executor import CpuExecutor, WorkerStartError, make_executor
from kernelopt.harness.builders import KEEP_BUILT_ENV


def _pid(ex: CpuExecutor) -> int:
    worker = ex.pool.slots[0].worker
    assert worker is not None and worker.alive()
    return worker.pid


def test_good_solution_passes_and_worker_persists(cpu_executor):
    req = rmsnorm_request(executor_solution("good"), batch_sizes=(7, 1, 16))
    first = cpu_executor.evaluate(req)
    assert statuses(first) == ["PASSED"] * 3, [r.log for r in first.results]
    assert [r.uuid for r in first.results] == [w.uuid for w in req.workloads]
    assert all(r.latency is not None and r.latency.timer == "cpu_wall" for r in first.results)
    assert first.environment["executor"]["kind"] == "cpu"
    pid = _pid(cpu_executor)
    many = cpu_executor.evaluate_many([rmsnorm_request(executor_solution("good"), batch_sizes=(b,))
                                       for b in (16, 1)])
    assert [r.results[0].axes["batch_size"] for r in many] == [16, 1]
    assert all(r.all_passed for r in many)
    assert _pid(cpu_executor) == pid  # persistent: same worker served all of it


def test_triton_solution_runs_in_the_interpreter(cpu_executor):
    sol = executor_solution("rmsnorm_triton_ok", root=HARNESS_FIXTURES)
    res = cpu_executor.evaluate(rmsnorm_request(sol, batch_sizes=(7,)))
    assert statuses(res) == ["PASSED"], res.results[0].log


def test_infinite_loop_times_out_and_next_request_works(cpu_executor):
    before = _pid(cpu_executor) if cpu_executor.pool.slots[0].worker else None
    t0 = time.monotonic()
    res = cpu_executor.evaluate(rmsnorm_request(executor_solution("loop"), batch_sizes=(7, 1), timeout_s=5))
    elapsed = time.monotonic() - t0
    assert statuses(res) == ["TIMEOUT", "TIMEOUT"]  # the second is not attempted after a hang
    assert "TIMEOUT" in res.results[0].log and "5 s" in res.results[0].log
    assert res.results[1].log.startswith("not run") and res.results[1].extra["executor_fault"] == "skipped"
    assert elapsed < 15, elapsed
    ok = cpu_executor.evaluate(rmsnorm_request(executor_solution("good")))
    assert statuses(ok) == ["PASSED"]
    assert _pid(cpu_executor) != before


def test_os_exit_is_a_runtime_error_naming_the_exit_code(cpu_executor):
    res = cpu_executor.evaluate(rmsnorm_request(executor_solution("exit3")))
    assert statuses(res) == ["RUNTIME_ERROR"]
    assert "exit code 3" in res.results[0].log
    assert res.results[0].extra["executor_fault"] == "crash"
    assert cpu_executor.evaluate(rmsnorm_request(executor_solution("good"))).all_passed


def test_segfault_is_a_runtime_error_naming_the_signal(cpu_executor):
    res = cpu_executor.evaluate(rmsnorm_request(executor_solution("segfault")))
    assert statuses(res) == ["RUNTIME_ERROR"]
    log = res.results[0].log
    assert "SIGSEGV" in log
    assert "Segmentation fault" in log  # faulthandler's dump, from the worker's output tail
    # the one-line summary (campaign display, `kernelopt evaluate`, tracking tag) is the crash, not the dump's end
    assert res.failure_line().startswith("RUNTIME_ERROR: worker crashed (killed by signal SIGSEGV (11))")
    assert cpu_executor.evaluate(rmsnorm_request(executor_solution("good"))).all_passed


def test_megabytes_of_output_keep_a_bounded_log_and_verdicts_on_merit(cpu_executor):
    res = cpu_executor.evaluate(rmsnorm_request(executor_solution("loud"), batch_sizes=(7, 16)))
    assert statuses(res) == ["RUNTIME_ERROR", "PASSED"], [r.log[-500:] for r in res.results]
    failed = res.results[0]
    assert "fails on odd batch sizes" in failed.log
    assert "LOUD-END-MARK" in failed.log  # the tail of what went to fd 1
    assert "earlier bytes of output dropped" in failed.log
    assert len(failed.log) < 120_000
    assert len(res.results[1].log) < 10_000


def test_children_of_a_timed_out_candidate_are_killed(cpu_executor, tmp_path):
    pidfile = tmp_path / "child.pid"
    sol = executor_solution("spawn_child", PIDFILE=str(pidfile))
    res = cpu_executor.evaluate(rmsnorm_request(sol, timeout_s=5))
    assert statuses(res) == ["TIMEOUT"]
    child = int(pidfile.read_text())
    assert process_gone(child), f"child {child} outlived its worker"


def test_harness_errors_become_runtime_errors_without_killing_the_worker(cpu_executor):
    pid = _pid(cpu_executor) if cpu_executor.pool.slots[0].worker else None
    req = rmsnorm_request(executor_solution("good")).model_copy(update={"evaluator": "no_such_evaluator"})
    res = cpu_executor.evaluate(req)
    assert statuses(res) == ["RUNTIME_ERROR"]
    assert "no_such_evaluator" in res.results[0].log
    assert res.results[0].extra["executor_fault"] == "harness_error"
    if pid is not None:
        assert _pid(cpu_executor) == pid


def test_worker_environment_is_scrubbed_of_secrets(build_cache_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("KERNELOPT_TEST_CANARY", "visible")
    with CpuExecutor(env=build_cache_env) as ex:
        secret, canary = ex.evaluate_many([
            rmsnorm_request(executor_solution("env_reader", VAR="OPENAI_API_KEY")),
            rmsnorm_request(executor_solution("env_reader", VAR="KERNELOPT_TEST_CANARY")),
        ])
    assert statuses(secret) == ["PASSED"], secret.results[0].log
    assert statuses(canary) == ["INCORRECT_NUMERICAL"]  # the probe does see ordinary variables


def test_each_request_runs_in_a_fresh_private_directory(cpu_executor):
    req = rmsnorm_request(executor_solution("cwd_probe", PARENT_CWD=os.getcwd()))
    first, second = cpu_executor.evaluate(req), cpu_executor.evaluate(req)  # same persistent worker
    assert statuses(first) == statuses(second) == ["PASSED"], first.results[0].log


def test_memory_limit_turns_host_memory_exhaustion_into_runtime_error(build_cache_env):
    # 8 GB leaves room for a CUDA build of torch (it maps several GB of address space at import)
    sol = executor_solution("memory_hog", BYTES=str(10 << 30))
    with CpuExecutor(env=build_cache_env, memory_limit_gb=8) as ex:
        res = ex.evaluate(rmsnorm_request(sol))
        assert statuses(res) == ["RUNTIME_ERROR"]
        assert "MemoryError" in res.results[0].log
        assert ex.evaluate(rmsnorm_request(executor_solution("good"))).all_passed


def test_broken_harness_target_fails_loudly_at_start():
    with make_executor("cpu", target="kernelopt.no_such_module:evaluate") as ex:
        with pytest.raises(WorkerStartError, match="no_such_module"):
            ex.evaluate(rmsnorm_request(executor_solution("good")))


_ORPHAN_SCRIPT = """
import sys
sys.path.insert(0, {helpers!r})
from executor_helpers import executor_solution, rmsnorm_request
from kernelopt.executor import CpuExecutor
ex = CpuExecutor(env={env!r}).start()
w = ex.pool.slots[0].worker
print(w.pid, w.scratch, flush=True)
ex.evaluate(rmsnorm_request(executor_solution("spawn_child", PIDFILE={pidfile!r}), timeout_s=600))
"""


def test_killing_the_executor_process_takes_its_workers_and_their_children(build_cache_env, tmp_path):
    pidfile = tmp_path / "child.pid"
    code = _ORPHAN_SCRIPT.format(helpers=str(Path(__file__).parent), env=build_cache_env, pidfile=str(pidfile))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        worker_pid, scratch = proc.stdout.readline().split()
        deadline = time.monotonic() + 60
        while not pidfile.exists() and time.monotonic() < deadline:  # the candidate is running
            time.sleep(0.1)
        assert pidfile.exists(), "the candidate never started its child"
    finally:
        proc.kill()  # SIGKILL: the executor gets no chance to clean up
        proc.wait()
    child = int(pidfile.read_text())
    assert process_gone(int(worker_pid)) and process_gone(child)
    assert not Path(scratch).exists()


def _census(tag: str, most: int, hold_mb: int = 1, gpu_mb: int = 1 << 20):
    return executor_solution("module_census", TAG=tag, MAX=str(most), HOLD_MB=str(hold_mb), GPU_MB=str(gpu_mb))


def test_a_persistent_worker_keeps_only_the_recent_solutions_built(build_cache_env):
    """executor.keep_built=2: the third solution's build releases the first one's modules, so every census sees at
    most two solution packages; with the default (8) the fourth sees four and fails - the check can fail."""
    with CpuExecutor(env={**build_cache_env, KEEP_BUILT_ENV: "2"}) as ex:
        kept = ex.evaluate_many([rmsnorm_request(_census(t, 2)) for t in "abcd"])
        pid = _pid(ex)
        again = ex.evaluate(rmsnorm_request(_census("a", 2)))  # released earlier: imported afresh, still correct
        assert _pid(ex) == pid
    assert [statuses(r) for r in kept] == [["PASSED"]] * 4, [r.results[0].log[-400:] for r in kept]
    assert [r.environment["builds"] for r in kept] == [{"others": n, "keep": 2} for n in (0, 1, 1, 1)]
    assert statuses(again) == ["PASSED"]
    with CpuExecutor(env=build_cache_env) as ex:
        crowded = ex.evaluate_many([rmsnorm_request(_census(t + "x", 3)) for t in "abcd"])
    assert [statuses(r) for r in crowded] == [["PASSED"]] * 3 + [["INCORRECT_NUMERICAL"]]
    assert crowded[3].environment["builds"] == {"others": 3, "keep": 8}
    assert "census dx: 4 solution packages" in crowded[3].results[0].log
