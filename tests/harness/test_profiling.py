"""Profiles on request: torch.profiler tables through the real harness, Nsight Compute through a fake
``ncu`` that runs the real target module and prints a recorded report, and the metric table the
bottleneck classifier reads."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from kernelopt.analysis.bottleneck import classify, load_bottleneck_table
from kernelopt.analysis.profile_parse import bottleneck_metrics
from kernelopt.data import EvalRequest, HarnessSettings, load_solution
from kernelopt.harness.evaluate import evaluate
from kernelopt.harness.ncu import METRICS, ncu_profile
from kernelopt.operators import load_operator

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "tests" / "analysis" / "fixtures" / "ncu_raw.csv"
OP = load_operator("rmsnorm_h4096")
QUICK = HarnessSettings(warmup=0, iterations=1, trials=1)


def _reference_solution():
    return load_solution(OP.path / "solutions" / "baselines" / "reference.json")


def test_profile_request_gives_a_torch_table_per_passed_workload() -> None:
    req = EvalRequest(definition=OP.definition, solution=_reference_solution(), workloads=OP.workloads[:2],
                      settings=QUICK, profile=True)
    res = evaluate(req, "cpu")
    assert res.all_passed
    profs = res.profile["workloads"]
    assert set(profs) == {w.uuid for w in OP.workloads[:2]}
    for prof in profs.values():
        table = prof["torch"]
        assert table["calls"] == 5 and table["kernels"] == [] and table["wall_us_per_call"] > 0
        assert any(op["name"].startswith("aten::") for op in table["host_ops"])
        assert "ncu" not in prof  # a CPU device: no Nsight Compute
    assert evaluate(req.model_copy(update={"profile": False}), "cpu").profile is None


def test_failed_workloads_are_not_profiled(tmp_path: Path) -> None:
    sol = _reference_solution()
    wrong = sol.model_copy(update={"name": "wrong", "sources": [s.model_copy(update={"content": s.content.replace(
        "return", "return 2.0 *", 1)}) for s in sol.sources]})
    res = evaluate(EvalRequest(definition=OP.definition, solution=wrong, workloads=OP.workloads[:1],
                               settings=QUICK, profile=True), "cpu")
    assert not res.all_passed and res.profile == {"workloads": {}}


def _fake_ncu(tmp_path: Path, exit_code: int = 0, stderr: str = "") -> Path:
    """An ``ncu`` stand-in: checks its options, runs the profiled command for real (so the target module
    must work), then prints the recorded raw report."""
    script = tmp_path / "ncu"
    script.write_text(f"""#!{sys.executable}
import subprocess, sys
args = sys.argv[1:]
assert args[:4] == ["--csv", "--page", "raw", "--profile-from-start"], args
metrics = args[args.index("--metrics") + 1].split(",")
assert {json.dumps(list(METRICS))} == metrics, metrics
cmd = args[args.index("--metrics") + 2:]
proc = subprocess.run(cmd, capture_output=True, text=True)
if proc.returncode:
    sys.stderr.write(proc.stderr)
    sys.exit(proc.returncode)
sys.stderr.write({stderr!r})
if {exit_code}:
    sys.exit({exit_code})
sys.stdout.write(open({str(RAW)!r}).read())
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_ncu_profile_runs_the_target_and_parses_the_report(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERNELOPT_NCU", str(_fake_ncu(tmp_path)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    req = EvalRequest(definition=OP.definition, solution=_reference_solution(), workloads=OP.workloads[:1],
                      settings=QUICK)
    got = ncu_profile(req, "cpu", timeout_s=120)
    assert "error" not in got, got
    assert got["launches"] and all("kernel" in launch for launch in got["launches"])
    metrics = bottleneck_metrics({"ncu": got, "torch": {"kernels": [
        {"name": "k", "launches": 2, "total_us": 20.0}], "kernels_per_call": 2.0, "host_gap_pct": 5.0}})
    assert metrics["kernels_per_call"] == 2.0 and metrics["mean_kernel_us"] == 10.0
    assert "dram_throughput_pct" in metrics and metrics["dominant_kernel"]
    cls, evidence = classify(metrics, load_bottleneck_table()["thresholds"])
    assert cls in ("memory_bound", "compute_bound", "latency_bound", "launch_bound", "occupancy_limited")
    assert evidence["metrics"]["dominant_kernel"] == metrics["dominant_kernel"]


def test_ncu_failures_are_recorded_not_raised(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    req = EvalRequest(definition=OP.definition, solution=_reference_solution(), workloads=OP.workloads[:1],
                      settings=QUICK)
    monkeypatch.setenv("KERNELOPT_NCU", str(_fake_ncu(tmp_path, 1, "==ERROR== ERR_NVGPUCTRPERM")))
    got = ncu_profile(req, "cpu", timeout_s=120)
    assert "ERR_NVGPUCTRPERM" in got["error"]
    monkeypatch.setenv("KERNELOPT_NCU", str(tmp_path / "missing-ncu"))
    assert "could not start" in ncu_profile(req, "cpu")["error"]


def test_bottleneck_metrics_of_an_empty_profile_is_empty() -> None:
    assert bottleneck_metrics({"torch": {"kernels": [], "kernels_per_call": 0.0}}) == {}
    with pytest.raises(ValueError):
        classify({}, load_bottleneck_table()["thresholds"])


def test_executor_merges_the_profiles_of_its_one_workload_parts(tmp_path: Path) -> None:
    from kernelopt.executor import make_executor

    req = EvalRequest(definition=OP.definition, solution=_reference_solution(), workloads=OP.workloads[:2],
                      settings=QUICK, profile=True)
    with make_executor("cpu", env={"KERNELOPT_CACHE_DIR": str(tmp_path)}) as ex:
        res = ex.evaluate(req)
    assert res.all_passed and set(res.profile["workloads"]) == {w.uuid for w in OP.workloads[:2]}
    assert json.dumps(res.profile)  # JSON-ready (logged as the run's profile.json)


@pytest.mark.gpu
def test_gpu_profiling_leaves_the_timing_worker_untouched() -> None:
    """Profiles run in child processes: after a profiled workload the next ones still pass, on the CUPTI
    timer, at the latency they have without profiling (on the H200, Kineto and ncu inside the worker
    made the next timed calls fail, then run ~2x slower)."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    from kernelopt.harness.cupti_timer import cupti_available

    req = EvalRequest(definition=OP.definition, solution=_reference_solution(), workloads=OP.workloads[:3],
                      settings=HarnessSettings(warmup=10, iterations=50, trials=3), profile=False)
    plain = evaluate(req, "cuda:0")
    res = evaluate(req.model_copy(update={"profile": True}), "cuda:0")
    assert res.all_passed, [(r.status, r.log[-500:]) for r in res.results]
    assert res.timer == ("cupti" if cupti_available() else "cuda_event")
    for prof in res.profile["workloads"].values():
        assert prof["torch"]["kernels"], prof["torch"]
        assert "error" not in prof.get("ncu", {}), prof["ncu"]
        # the cold pass (L2 flushed before each call) counts the call's kernels, not the flush's
        assert "cold_error" not in prof["torch"], prof["torch"]["cold_error"]
        assert prof["torch"]["cold_kernels_per_call"] == prof["torch"]["kernels_per_call"], prof["torch"]
        assert prof["torch"]["cold_device_us_per_call"] >= 0.8 * prof["torch"]["device_us_per_call"], prof["torch"]
        assert prof["torch"]["cold_b2b_kernels_per_call"] == prof["torch"]["kernels_per_call"], prof["torch"]
    for a, b in zip(plain.results, res.results):
        # profiler state left in the worker slowed every later call ~2x; one slow trial of three is the host's noise
        # (the reference is launch-bound: H200 call EI read trials of 0.112 / 0.168 / 0.162 ms after 0.108-0.110
        # without profiling), so the check takes the profiled run's fastest trial
        assert min(b.latency.trial_medians_ms) < 1.3 * a.latency.mean_ms, (a.latency, b.latency)
        if res.timer == "cupti":  # the official loop's own span anatomy, kept with every timed workload
            span = b.extra["official_span"]
            assert span["activities"] >= 1 and 0.0 <= span["idle_pct"] <= 100.0, span
            assert len(span["idle_pct_by_trial"]) == 3 and span["span_us"] > 0, span
            assert res.profile["workloads"][b.uuid]["official_span"] == span  # the profile carries it


def test_a_profile_past_its_time_limit_is_killed_with_the_target_it_started(tmp_path: Path) -> None:
    """The wrapper (as ncu does) starts the target and waits; at the limit both go, none is left running."""
    from kernelopt.harness.profiling import run_profile_target

    pid_file = tmp_path / "target.pid"
    wrapper = tmp_path / "slow-wrapper"
    wrapper.write_text(f"""#!{sys.executable}
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open({str(pid_file)!r}, "w").write(str(child.pid))
child.wait()
""")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    req = EvalRequest(definition=OP.definition, solution=_reference_solution(), workloads=OP.workloads[:1],
                      settings=QUICK)
    proc, err = run_profile_target("ncu", req, "cpu", 3.0, [str(wrapper)])
    assert proc is None and err["error"] == "ncu profile timed out after 3 s"
    pid = int(pid_file.read_text())
    for _ in range(50):  # the kill is delivered at once; reaping by init may take a moment
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the wrapper's child {pid} outlived the time-out")


def test_the_cold_pass_flushes_twice_the_l2_between_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold pass's host side on a CPU (CUDA's device queries stubbed): it zeroes a buffer of twice the L2
    before each call, as the official timing does, first synchronizing around each flush and call (as the official
    CUPTI loop does), then issuing them back to back (no idle GPU between calls), and reports the calls' device time
    (none on a CPU) apart from the flush's. Its GPU figures are checked by
    test_gpu_profiling_leaves_the_timing_worker_untouched."""
    import types

    import torch

    from kernelopt.harness import profiling

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: types.SimpleNamespace(L2_cache_size=1 << 20))
    order = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: order.append("sync"))
    zero = torch.Tensor.zero_

    def spy(t: torch.Tensor) -> torch.Tensor:
        order.append(f"flush {t.numel()}")
        return zero(t)

    monkeypatch.setattr(torch.Tensor, "zero_", spy)
    out = profiling.cold_pass(lambda a: order.append("call"), [torch.ones(8)], torch.device("cpu"), 3, {"k"})
    assert out == {"cold_device_us_per_call": 0.0, "cold_kernels_per_call": 0.0, "cold_b2b_device_us_per_call": 0.0,
                   "cold_b2b_kernels_per_call": 0.0, "cold_flush_bytes": 2 << 20}
    f = f"flush {2 << 20}"
    alone = [f, "sync"]  # one flush alone, to name its kernels
    synced = [f, "sync", "call", "sync"] * 3
    b2b = [f, "call"] * 3 + ["sync"]  # no synchronize between calls
    assert order == alone + synced + b2b + b2b  # the back-to-back round once unprofiled, then profiled
