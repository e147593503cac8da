"""The adversarial corpus: every cheat is rejected with the right reason, every honest kernel passes.

Runs in-process through ``kernelopt.harness.evaluate.evaluate`` on rmsnorm_h4096 batch 1 (gemm for
library fallback, which the static policy rejects before running anything), plus a few through
the real ``cpu`` executor. Tiny settings: warmup 1, iterations 3, trials 2, no reference timing.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from adversarial_helpers import DEVICE, corpus_solution, request_for

from kernelopt.data import EvaluationStatus as S
from kernelopt.harness.evaluate import evaluate
from kernelopt.operators import OPERATORS_DIR

#: cheat -> (status, reason substrings, settings overrides, workload sizes)
CHEATS: dict[str, tuple[S, tuple[str, ...], dict, tuple[int, ...]]] = {
    "pointer_cache": (S.REJECTED, ("same-address probe",), {}, (1,)),
    "object_id_cache": (S.REJECTED, ("same-address probe",), {}, (1,)),
    "stale_buffer": (S.INCORRECT_NUMERICAL, ("trial 1",), {}, (1,)),
    "garbage_when_warm": (S.REJECTED, ("re-check of the last timed call",), {}, (1,)),
    "correct_only_last": (S.REJECTED, ("re-check of timed call ", " of 3 (trial 0)"), {}, (1,)),
    "deferred_thread": (S.REJECTED, ("spawned threads during timing",), {}, (1,)),
    "pool_worker": (S.REJECTED, ("threads the solution started earlier worked during timing",), {}, (1,)),
    "lazy_subclass": (S.REJECTED, ("not a plain torch.Tensor",), {}, (1,)),
    "patch_perf_counter": (S.REJECTED, ("harness tampering", "time.perf_counter"), {}, (1,)),
    "patch_time_callable": (S.REJECTED, ("harness tampering at import", "time_callable"), {}, (1,)),
    "patch_synchronize": (S.REJECTED, ("harness tampering", "torch.cuda.synchronize"), {}, (1,)),
    "patch_builtins": (S.REJECTED, ("harness tampering", "builtins.max"), {}, (1,)),
    "patch_reference_torch": (S.REJECTED, ("harness tampering at import", "torch.rsqrt"), {}, (1,)),
    "dynamo_wrapped_fake": (S.REJECTED, ("harness tampering at import", "torch.manual_seed"), {}, (1,)),
    "autocast_reference": (S.REJECTED, ("harness tampering at import", "torch.rsqrt"), {}, (1,)),
    "code_swap_timer": (S.REJECTED, ("harness tampering at import", "kernelopt.harness.timing.time_callable"), {},
                        (1,)),
    "harness_constant": (S.REJECTED, ("harness tampering at import", "kernelopt.harness.correctness.EPS"), {}, (1,)),
    "function_mode_reference": (S.REJECTED, ("harness tampering at import", "torch mode stacks"), {}, (1,)),
    "fake_torch_module": (S.REJECTED, ("harness tampering at import", "sys.modules[torch]"), {}, (1,)),
    "trace_hook": (S.REJECTED, ("harness tampering at import", "trace / profile hooks"), {}, (1,)),
    "reference_cache_poison": (S.REJECTED, ("harness tampering at import", "kernelopt.harness.reference.load_reference"),
                               {}, (1,)),
    "reference_from_frames": (S.REJECTED, ("re-check of the last timed call", "INCORRECT_SHAPE"), {}, (1,)),
    "mutate_input": (S.REJECTED, ("input mutation", "weight"), {}, (1,)),
    "precision_downcast": (S.REJECTED, ("precision probe", "policy.json"), {"precision_probe": True}, (1,)),
    "flashinfer_fallback": (S.REJECTED, ("static policy", "import of flashinfer"), {}, (1,)),
    "subprocess_escape": (S.REJECTED, ("static policy", "import of subprocess"), {"static_policy": "strict"}, (1,)),
    "slow_when_fresh": (S.REJECTED, ("fresh-input latency",), {"replay_check": True, "replay_max_gap": 1.0}, (1,)),
    "gemm_torch_matmul": (S.REJECTED, ("static policy", "main.py:6: use of torch.matmul"), {}, (256,)),
    "gemm_matmul_operator": (S.REJECTED, ("static policy", "operator '@'"), {}, (256,)),
    "gemm_aten_alias": (S.REJECTED, ("use of torch.nn.functional.linear", "use of torch.ops.aten.mm"), {}, (256,)),
}

#: Cheats whose timed calls launch no kernel (they return a cached, found or unfinished tensor, or launch from a
#: thread later): on a GPU the CUPTI timer stops them first, RUNTIME_ERROR as the official timer does, before the
#: guard the table names can look (seen on an H100, 2026-12-06, call JC)
LAUNCHLESS = {"correct_only_last", "deferred_thread", "pool_worker", "reference_from_frames"}
NO_LAUNCH = (S.RUNTIME_ERROR, ("No kernel activities recorded",))


def _expected(name: str, status: S, reasons: tuple[str, ...]) -> tuple[S, tuple[str, ...]]:
    return NO_LAUNCH if DEVICE == "cuda" and name in LAUNCHLESS else (status, reasons)


#: Every guard on, the strictest static policy; replay gap loose (CPU wall-clock noise).
ALL_GUARDS = {"static_policy": "strict", "precision_probe": True, "replay_check": True, "replay_max_gap": 10.0}


def _check(res, status: S, reasons: tuple[str, ...]) -> None:
    for r in res.results:
        assert r.status == status, f"{res.solution}: {r.status} != {status}\n{r.log}"
        for reason in reasons:
            assert reason in r.log, f"{res.solution}: {reason!r} not in log:\n{r.log}"


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_cheat_is_rejected_with_its_reason(name):
    status, reasons, settings, sizes = CHEATS[name]
    res = evaluate(request_for(corpus_solution("cheats", name), sizes, **settings), device=DEVICE)
    _check(res, *_expected(name, status, reasons))
    assert all(r.latency is None for r in res.results)


def test_corpus_has_a_case_for_every_cheat_folder():
    from adversarial_helpers import CORPUS

    folders = {p.name for p in (CORPUS / "cheats").iterdir() if (p / "solution.json").is_file()}
    # each of these has its own test below (a worker process, a latency comparison) or in
    # tests/executor/test_executor_network.py (network_exfiltration: a sink server beside a real worker)
    assert folders == set(CHEATS) | {"writes_operator_files", "self_restoring_clock", "patch_worker_wire",
                                     "network_exfiltration", "setsid_daemon", "copy_reference"}
    assert len(folders) >= 12


@pytest.mark.parametrize("name", ["py_value", "py_dps", "triton_rowwise", "imports_dynamo"])
def test_honest_solution_passes_every_guard(name):
    res = evaluate(request_for(corpus_solution("honest", name), (1, 7), **ALL_GUARDS), device=DEVICE)
    for r in res.results:
        assert r.status == S.PASSED, r.log
        assert r.extra["fresh_input_latency_ms"] > 0 and "fresh_input_gap" in r.extra


def test_precision_downcast_passes_the_contest_tolerance_alone():
    """What the probe adds: without it the bf16 'dress-up' is accepted."""
    res = evaluate(request_for(corpus_solution("cheats", "precision_downcast"), (1, 7)), device=DEVICE)
    assert [r.status for r in res.results] == [S.PASSED, S.PASSED], res.results[0].log


def test_replay_cache_caught_without_same_address_probe_by_replay_pass():
    """The fresh-input pass alone (probe off) catches an address-keyed cache by its outputs. One correctness trial:
    with two, the second trial's fresh inputs may land at the first's freed addresses (the allocator's choice), and
    the cache then fails the correctness check before the pass under test runs (seen once in CI, 2026-12-02)."""
    sol = corpus_solution("cheats", "pointer_cache")
    res = evaluate(request_for(sol, (1,), trials=1, same_address_probe=False, replay_check=True, replay_max_gap=10.0),
                   device=DEVICE)
    _check(res, *(NO_LAUNCH if DEVICE == "cuda" else (S.REJECTED, ("replay: fresh-input call",))))


def test_garbage_when_warm_passes_without_the_recheck():
    """Documents that the official flow alone misses it: the re-check is what rejects it."""
    sol = corpus_solution("cheats", "garbage_when_warm")
    res = evaluate(request_for(sol, (1,), recheck_outputs=False), device=DEVICE)
    assert res.results[0].status == S.PASSED


def test_correct_only_last_passes_without_the_recheck_and_was_missed_by_the_last_call_alone():
    """Documents the gap the random timed call closes: without re-checks it passes, and it is right on the last
    timed call (what the re-check used to look at); its mean latency is then a wrong answer's. (On a GPU the CUPTI
    timer stops it first: its early timed calls launch no kernel.)"""
    sol = corpus_solution("cheats", "correct_only_last")
    res = evaluate(request_for(sol, (1,), recheck_outputs=False), device=DEVICE)
    _check(res, *_expected("correct_only_last", S.PASSED, ()))


def test_harness_is_restored_after_tampering():
    import builtins
    import time as time_mod

    real_pc, real_max = time_mod.perf_counter, builtins.max
    for name in ("patch_perf_counter", "patch_builtins", "patch_time_callable"):
        evaluate(request_for(corpus_solution("cheats", name), (1,)), device=DEVICE)
    from kernelopt.harness import timing, workload_run

    assert time_mod.perf_counter is real_pc and builtins.max is real_max
    assert workload_run.time_callable is timing.time_callable
    assert timing.time_callable.__module__ == timing.__name__
    res = evaluate(request_for(corpus_solution("honest", "py_value"), (1,)), device=DEVICE)
    assert res.results[0].status == S.PASSED
    # a solution rejected at import is imported (and rejected) again, not served from the build cache
    again = evaluate(request_for(corpus_solution("cheats", "patch_time_callable"), (1,)), device=DEVICE)
    assert "harness tampering at import" in again.results[0].log


def test_a_clock_patch_that_restores_itself_times_nothing_it_fakes():
    """Its clock, put in place inside a timed call and put back when read right after it, made that call measure
    ~0 (105x, PASSED): the timer's clock is bound before the first timed call, so the patch is never read."""
    honest = evaluate(request_for(corpus_solution("honest", "py_dps"), (1,), iterations=20), device=DEVICE)
    cheat = evaluate(request_for(corpus_solution("cheats", "self_restoring_clock"), (1,), iterations=20),
                     device=DEVICE)
    (h,), (c,) = honest.results, cheat.results
    assert h.status == S.PASSED and c.status in (S.PASSED, S.REJECTED), c.log
    if c.status == S.PASSED:
        assert c.latency.mean_ms > 0.3 * h.latency.mean_ms, (c.latency.mean_ms, h.latency.mean_ms)


def test_a_patched_worker_result_wire_is_rejected_through_the_real_worker():
    """Through the cpu executor's worker (run as `python -m kernelopt.executor.worker`, so its functions live in
    `__main__`): the patch would have reported this and every later candidate of the worker 1000x faster."""
    from kernelopt.executor import CpuExecutor

    with CpuExecutor() as ex:  # the build cache: this test's (the folder's autouse fixture sets it)
        cheat, honest = ex.evaluate_many([request_for(corpus_solution("cheats", "patch_worker_wire"), (1,)),
                                          request_for(corpus_solution("honest", "py_dps"), (1,))])
    assert cheat.results[0].status == S.REJECTED and "result_to_wire" in cheat.results[0].log, cheat.results[0].log
    assert honest.results[0].status == S.PASSED and honest.results[0].latency.mean_ms > 1e-3


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_daemon_in_its_own_session_is_killed_and_rejected(tmp_path):
    """Through a real worker (a child subreaper): the daemon double-forked into a new session used to outlive the
    worker and the executor (killpg takes the worker's group only); now the workload is REJECTED and the daemon is
    dead before the next candidate runs, which passes in the same worker."""
    from kernelopt.executor import CpuExecutor

    pidfile = tmp_path / "daemon.pid"
    with CpuExecutor(env={"KERNELOPT_CACHE_DIR": str(tmp_path / "builds"), "ADV_PIDFILE": str(pidfile)}) as ex:
        cheat = ex.evaluate_many([request_for(corpus_solution("cheats", "setsid_daemon"), (1,))])[0]
        pid = int(pidfile.read_text())
        daemon_alive = _alive(pid)
        honest = ex.evaluate_many([request_for(corpus_solution("honest", "py_dps"), (1,))])[0]
    try:
        _check(cheat, S.REJECTED, ("left processes running outside the worker's process group", f"pid {pid} (sleep)"))
        assert cheat.results[0].latency is None
        assert not daemon_alive
        _check(honest, S.PASSED, ())
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_no_copy_of_the_reference_is_visible_to_candidate_code(tmp_path):
    """The reference's outputs stay sealed while candidate code runs (kernelopt.harness.sealed): at no call, in the
    correctness trials, the same-address probe or the timed calls, nor in a second evaluation meeting the first's
    entries in the worker's reference cache, does a tensor equal to the reference's answer exist to be copied.
    (Before the seal the cheat found one in every timed call and in the second evaluation's correctness calls.)"""
    from kernelopt.executor import CpuExecutor

    probe = tmp_path / "probe.txt"
    req = request_for(corpus_solution("cheats", "copy_reference"), (1, 7))
    # a worker of its own: in this test process, earlier candidates' module-level caches hold honest outputs
    with CpuExecutor(env={"KERNELOPT_CACHE_DIR": str(tmp_path / "builds"), "ADV_PROBE": str(probe)}) as ex:
        results = ex.evaluate_many([req, req])
    for res in results:
        _check(res, S.PASSED, ())
    calls = probe.read_text().split()
    assert len(calls) > 10 and set(calls) == {"none"}, calls


def test_writes_to_operator_files_are_rejected(tmp_path, monkeypatch):
    root = tmp_path / "operators"
    shutil.copytree(OPERATORS_DIR / "rmsnorm_h4096", root / "rmsnorm_h4096")
    monkeypatch.setenv("KERNELOPT_OPERATORS_DIR", str(root))
    res = evaluate(request_for(corpus_solution("cheats", "writes_operator_files"), (1, 7)), device=DEVICE)
    _check(res, S.REJECTED, ("wrote to protected files", "harness.json"))
    assert (root / "rmsnorm_h4096" / "harness.json").read_text() != "{}"  # the write happened, in the copy


def test_cheats_through_the_cpu_executor(tmp_path):
    from kernelopt.executor import CpuExecutor

    names = [("cheats", "pointer_cache"), ("cheats", "deferred_thread"), ("cheats", "patch_time_callable"),
             ("honest", "py_value")]
    reqs = [request_for(corpus_solution(k, n), (1,)) for k, n in names]
    t0 = time.monotonic()
    with CpuExecutor(env={"KERNELOPT_CACHE_DIR": str(tmp_path / "builds")}) as ex:
        results = ex.evaluate_many(reqs)
    _check(results[0], S.REJECTED, ("same-address probe",))
    _check(results[1], S.REJECTED, ("spawned threads",))
    _check(results[2], S.REJECTED, ("harness tampering at import",))
    _check(results[3], S.PASSED, ())
    assert time.monotonic() - t0 < 120


def test_a_candidate_importing_torch_dynamo_first_in_its_worker_is_not_tampering(tmp_path):
    """torch._dynamo's import rebinds torch.manual_seed to torch's own wrapper of it: the first candidate of a worker
    to import it (fla's GDN baseline on an H100, call MD of 2026-12-06) was REJECTED for tampering. A fresh worker
    (dynamo not imported yet, unlike this test process) must pass it, and still reject a torch-made wrapper of
    anything else."""
    from kernelopt.executor import CpuExecutor

    with CpuExecutor(env={"KERNELOPT_CACHE_DIR": str(tmp_path / "builds")}) as ex:
        honest, cheat = ex.evaluate_many([request_for(corpus_solution("honest", "imports_dynamo"), (1,)),
                                          request_for(corpus_solution("cheats", "dynamo_wrapped_fake"), (1,))])
    _check(honest, S.PASSED, ())
    _check(cheat, S.REJECTED, ("harness tampering at import", "torch.manual_seed"))
