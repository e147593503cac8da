"""benchmarks/contest.py: the retained kernel against every baseline, side by side, in one run.

One end-to-end CPU run (Triton interpreter, quick preset, two small workloads) through the real
executor and harness; the rest checks the sweep order, the comparisons and the command-line errors
with fakes, in-process."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from operator_helpers import load_script

from kernelopt.analysis.roofline import load_roofline
from kernelopt.controller.workloads import workload_size
from kernelopt.data import EvalResult, HarnessSettings, load_solution
from kernelopt.data.loader import load_traces
from kernelopt.data.records import LatencyStats, WorkloadResult
from kernelopt.data.trace import EvaluationStatus
from kernelopt.generators.seeds import load_seed
from kernelopt.operators import load_operator

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "contest.py"
RMSNORM = "rmsnorm_h4096"
SEED = "operators/rmsnorm_h4096/solutions/seeds/rmsnorm_rowwise"


def _contest() -> types.ModuleType:
    return load_script("kopt_contest_benchmark", SCRIPT)


def _flashinfer_installed() -> bool:
    return importlib.util.find_spec("flashinfer") is not None


# --------------------------------------------------------------------------- end to end (CPU)
def test_contest_cpu_run(tmp_path: Path) -> None:
    cmd = [sys.executable, str(SCRIPT), "--operators", RMSNORM, "--executor", "cpu", "--preset", "quick",
           "--solution", f"{RMSNORM}={SEED}", "--baselines", "reference", "--max-workloads", "2",
           "--budget-s", "60", "--out", str(tmp_path), "--name", "test", "--traces", str(tmp_path / "tr")]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    traces = load_traces(tmp_path / "tr" / RMSNORM / "retained.jsonl")
    assert traces and all(t.evaluation.status.value == "PASSED" for t in traces)
    assert "workload 1/2" in proc.stderr  # progress lines
    data = json.loads((tmp_path / "contest_test.json").read_text())
    md = (tmp_path / "contest_test.md").read_text()
    op = data["operators"][RMSNORM]
    cands = op["candidates"]
    assert set(cands) == {"retained", "reference", "flashinfer"}
    for label in ("retained", "reference"):
        c = cands[label]
        assert 1 <= c["evaluated"] <= 2 and c["total"] == 14
        assert c["status_counts"] == {"PASSED": c["evaluated"]}, c["first_error"]
        assert c["timer"] == "cpu_wall" and c["mean_ms"] > 0 and c["p95_ms"] > 0
    assert cands["retained"]["role"] == "retained" and cands["retained"]["source"] == SEED
    assert cands["retained"]["solution"].startswith("rmsnorm_rowwise")
    assert set(op["common_workloads"]) == set(cands["retained"]["per_workload"]) & set(
        cands["reference"]["per_workload"])
    speed = cands["retained"]["speedup_vs_reference"]
    assert isinstance(speed, float) and speed > 0 and cands["retained"]["speedup_workloads"] >= 1
    assert cands["reference"]["speedup_vs_reference"] == pytest.approx(1.0)
    ratio = cands["retained"]["ratios"]["reference"]["ratio"]
    assert ratio == pytest.approx(cands["reference"]["common_mean_ms"] / cands["retained"]["common_mean_ms"])
    fi = cands["flashinfer"]
    if _flashinfer_installed():
        assert fi["importable"] is True
    else:
        assert fi["importable"] is False and fi["error"].startswith("flashinfer not importable: ")
        assert "flashinfer not importable" in md
    assert op["bands"]["band_axis"] == "batch_size" and op["bands"]["bands"]
    assert sum(b["common"] for b in op["bands"]["bands"]) == len(op["common_workloads"])
    env = data["environment"]
    assert env["timers"] == ["cpu_wall"] and env["torch"] and env["triton"] and env["executor"] == "cpu"
    assert data["command"].startswith("python benchmarks/contest.py --operators rmsnorm_h4096")
    assert data["command"] in md and "timer cpu_wall" in md and "| retained |" in md
    # when each candidate was measured: interleaved in one run, so one period and no warning
    assert "Measured (UTC, first to last workload): retained " in md and "Not all in one period" not in md
    assert cands["retained"]["measured"][0] <= cands["reference"]["measured"][1]

    # the same comparison rebuilt from the saved traces, evaluating nothing
    again = [sys.executable, str(SCRIPT), "--operators", RMSNORM, "--solution", f"{RMSNORM}={SEED}",
             "--baselines", "reference", "--max-workloads", "2", "--out", str(tmp_path), "--name", "rebuilt",
             "--from-traces", str(tmp_path / "tr")]
    proc = subprocess.run(again, cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rebuilt = json.loads((tmp_path / "contest_rebuilt.json").read_text())
    rc = rebuilt["operators"][RMSNORM]["candidates"]
    for label in ("retained", "reference"):
        assert rc[label]["per_workload"] == pytest.approx(cands[label]["per_workload"])
        assert rc[label]["timer"] == "cpu_wall"
    assert rc["retained"]["speedup_vs_reference"] == pytest.approx(speed)
    assert rc["retained"]["measured"] == cands["retained"]["measured"]  # the traces' first and last stamps
    assert rebuilt["executor"].startswith("none") and "figures from" in (tmp_path / "contest_rebuilt.md").read_text()


# --------------------------------------------------------------------------- sweep order (fake executor)
class _FakeExecutor:
    def __init__(self, hardware: str = "cpu") -> None:
        self.calls: list[tuple[str, str]] = []
        self.hardware = hardware

    def evaluate(self, request):  # type: ignore[no-untyped-def]
        time.sleep(0.002)
        w = request.workloads[0]
        self.calls.append((request.solution.name, w.uuid))
        r = WorkloadResult(uuid=w.uuid, axes=w.axes, status=EvaluationStatus.PASSED,
                           latency=LatencyStats(mean_ms=1.0, trial_medians_ms=[1.0], timer="cpu_wall"))
        return EvalResult(definition=request.definition.name, solution=request.solution.name,
                          solution_hash="x", results=[r], timer="cpu_wall",
                          environment={"hardware": self.hardware})


def _candidates(mod: types.ModuleType, op, labels: list[str]):  # type: ignore[no-untyped-def]
    ref = load_solution(op.path / "solutions" / "baselines" / "reference.json")
    return [mod.Candidate(lb, "baseline", lb, ref.model_copy(update={"name": lb})) for lb in labels]


def test_sweep_interleaves_candidates_over_the_same_workloads() -> None:
    mod = _contest()
    op = load_operator(RMSNORM)
    cands = _candidates(mod, op, ["a", "b", "c"])
    order = mod.sweep_order(op.workloads, 4)
    ex = _FakeExecutor()
    runs = mod.sweep(ex, op, cands, HarnessSettings(), order, budget_s=1e9)
    seen = {lb: [r.uuid for r in runs[lb]["results"]] for lb in "abc"}
    assert seen["a"] == seen["b"] == seen["c"] == [w.uuid for w in order]
    assert [n for n, _ in ex.calls[:6]] == ["a", "b", "c", "b", "c", "a"]  # rotated per workload


class _FallbackExecutor(_FakeExecutor):
    """CUPTI on the short workloads, CUDA events on the last one (a call over cupti_max_call_ms)."""

    def __init__(self, last: str) -> None:
        super().__init__()
        self.last = last

    def evaluate(self, request):  # type: ignore[no-untyped-def]
        res = super().evaluate(request)
        timer = "cuda_event" if request.workloads[0].uuid == self.last else "cupti"
        r = res.results[0].model_copy(update={"latency": LatencyStats(mean_ms=1.0, trial_medians_ms=[1.0],
                                                                      timer=timer)})
        return res.model_copy(update={"results": [r], "timer": timer})


def test_sweep_names_every_timer_that_ran_not_the_last_requests() -> None:
    mod = _contest()
    op = load_operator(RMSNORM)
    order = mod.sweep_order(op.workloads, 3)
    runs = mod.sweep(_FallbackExecutor(order[-1].uuid), op, _candidates(mod, op, ["a"]), HarnessSettings(), order,
                     budget_s=1e9)
    assert runs["a"]["timer"] == "cuda_event+cupti"


def test_sweep_budget_is_per_candidate() -> None:
    mod = _contest()
    op = load_operator(RMSNORM)
    ex = _FakeExecutor()
    runs = mod.sweep(ex, op, _candidates(mod, op, ["a", "b"]), HarnessSettings(), mod.sweep_order(op.workloads),
                     0.0)
    assert [len(runs[lb]["results"]) for lb in "ab"] == [1, 1]  # one workload each, then out of budget
    assert runs["a"]["results"][0].uuid == runs["b"]["results"][0].uuid


def test_sweep_resume_skips_traced_pairs_and_keeps_the_files(tmp_path: Path) -> None:
    mod = _contest()
    op = load_operator(RMSNORM)
    order = mod.sweep_order(op.workloads, 5)
    cands = _candidates(mod, op, ["a", "b"])
    first = mod.sweep(_FakeExecutor(), op, cands, HarnessSettings(), order[:2], 1e9, tmp_path)
    assert [len(first[lb]["results"]) for lb in "ab"] == [2, 2]
    ex = _FakeExecutor()
    mod.sweep(ex, op, cands, HarnessSettings(), order, 1e9, tmp_path, resume=True)
    assert sorted(ex.calls) == sorted((lb, w.uuid) for lb in "ab" for w in order[2:])  # nothing twice
    for lb in "ab":
        traced = [t.workload.uuid for t in load_traces(tmp_path / RMSNORM / f"{lb}.jsonl")]
        assert sorted(traced) == sorted(w.uuid for w in order)
    runs = mod.runs_from_traces(op, cands, tmp_path)
    assert all(len(runs[lb]["results"]) == 5 for lb in "ab")
    # --retry: traced pairs with a listed status are evaluated again and their old traces replaced
    path = tmp_path / RMSNORM / "a.jsonl"
    lines = path.read_text().splitlines()
    first_line = json.loads(lines[0])
    first_line["evaluation"].update(status="REJECTED", performance=None)
    lines[0] = json.dumps(first_line)
    path.write_text("\n".join(lines) + "\n")
    ex = _FakeExecutor()
    mod.sweep(ex, op, cands, HarnessSettings(), order, 1e9, tmp_path, resume=True, retry=frozenset({"REJECTED"}))
    assert ex.calls == [("a", order[0].uuid)]
    again = load_traces(path)
    assert len(again) == 5 and all(t.evaluation.status.value == "PASSED" for t in again)
    # a file holding another kernel under the same label is refused, not mixed into the table
    renamed = [mod.Candidate("a", "baseline", "a2", cands[0].solution.model_copy(update={"name": "a2"}))]
    with pytest.raises(mod.UsageError, match="holds traces of \\['a'\\], not of 'a2'"):
        mod.sweep(_FakeExecutor(), op, renamed, HarnessSettings(), order, 1e9, tmp_path, resume=True)
    # so is another version of the same kernel (same name, other code: a seed edited since)
    assert (tmp_path / RMSNORM / "a.solution.json").is_file()
    sol = cands[0].solution
    edited = sol.model_copy(update={"sources": [src.model_copy(update={"content": src.content + "\n# edited\n"})
                                                for src in sol.sources]})
    assert edited.name == sol.name and edited.hash() != sol.hash()
    with pytest.raises(mod.UsageError, match="another version of"):
        mod.sweep(_FakeExecutor(), op, [mod.Candidate("a", "baseline", "a", edited)], HarnessSettings(), order,
                  1e9, tmp_path, resume=True)
    # without --resume the files start afresh
    mod.sweep(_FakeExecutor(), op, cands, HarnessSettings(), order[:1], 1e9, tmp_path)
    assert len(load_traces(tmp_path / RMSNORM / "a.jsonl")) == 1


def test_sweep_resume_refuses_traces_of_another_card(tmp_path: Path) -> None:
    """A GPU call answered by another card (an H100 for an H200, 2026-12-06) must not add its figures to the
    first card's sweep: the first new result names this machine's card, and nothing is appended."""
    mod = _contest()
    op = load_operator(RMSNORM)
    order = mod.sweep_order(op.workloads, 4)
    cands = _candidates(mod, op, ["a"])
    mod.sweep(_FakeExecutor("NVIDIA H100 80GB HBM3"), op, cands, HarnessSettings(), order[:2], 1e9, tmp_path)
    path = tmp_path / RMSNORM / "a.jsonl"
    before = path.read_text()
    with pytest.raises(mod.UsageError, match="measured on NVIDIA H100 80GB HBM3; this machine evaluates on NVIDIA "
                                             "H200: resume into another --traces folder"):
        mod.sweep(_FakeExecutor("NVIDIA H200"), op, cands, HarnessSettings(), order, 1e9, tmp_path, resume=True)
    assert path.read_text() == before
    ex = _FakeExecutor("NVIDIA H100 80GB HBM3")  # the same card goes on
    mod.sweep(ex, op, cands, HarnessSettings(), order, 1e9, tmp_path, resume=True)
    assert len(ex.calls) == 2 and len(load_traces(path)) == 4


def test_resume_without_traces_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert _contest().main(["--operators", RMSNORM, "--resume", "--executor", "cpu"]) == 2
    assert "--resume needs --traces" in capsys.readouterr().err


def test_no_baselines_probes_no_external_package() -> None:
    """`--no-baselines` (the retained kernel alone): no external rows (call HD's table listed 'flashinfer not
    importable' under a retained-only sweep); named or default baselines keep them."""
    mod = _contest()
    assert mod.probe_externals([RMSNORM], []) == {}
    assert set(mod.probe_externals([RMSNORM], ["reference"])) == {"flashinfer"}
    assert set(mod.probe_externals([RMSNORM])) == {"flashinfer"}


def test_no_baselines_selects_none_and_conflicts_with_named_ones(capsys: pytest.CaptureFixture[str]) -> None:
    mod = _contest()
    assert mod.main(["--operators", RMSNORM, "--executor", "cpu", "--no-baselines", "--no-retained"]) == 2
    assert "no candidates (no retained kernel and no baseline selected)" in capsys.readouterr().err
    assert mod.main(["--operators", RMSNORM, "--executor", "cpu", "--no-baselines", "--baselines", "reference"]) == 2
    assert "--no-baselines and --baselines reference: choose one" in capsys.readouterr().err


# --------------------------------------------------------------------------- comparisons (H200 ceilings)
def _result(w, ms: float | None) -> WorkloadResult:  # type: ignore[no-untyped-def]
    if ms is None:
        return WorkloadResult(uuid=w.uuid, axes=w.axes, status=EvaluationStatus.RUNTIME_ERROR, log="boom\nKeyError: x")
    return WorkloadResult(uuid=w.uuid, axes=w.axes, status=EvaluationStatus.PASSED,
                          latency=LatencyStats(mean_ms=ms, trial_medians_ms=[ms], timer="cupti"))


def test_compare_uses_common_workloads_and_the_roofline_analysis() -> None:
    mod = _contest()
    op = load_operator(RMSNORM)
    ws = mod.sweep_order(op.workloads)
    cands = _candidates(mod, op, ["retained", "reference", "broken"])
    env = {"hardware": "NVIDIA H200", "libs": {"torch": "t", "triton": "tr"}}
    runs = {  # retained ran out of budget after 3 workloads; broken fails everywhere
        "retained": {"results": [_result(w, 0.01 * (i + 1)) for i, w in enumerate(ws[:3])]},
        "reference": {"results": [_result(w, 0.05 * (i + 1)) for i, w in enumerate(ws)]},
        "broken": {"results": [_result(w, None) for w in ws]},
    }
    for r in runs.values():
        r.update(timer="cupti", environment=env, spent_s=1.0)
    probe = {"importable": False, "error": "flashinfer not importable: ModuleNotFoundError: x"}
    out = mod.compare(op, cands, runs, [w.uuid for w in ws], {"flashinfer": probe, "deep_gemm": probe})
    assert out["common_over"] == ["retained", "reference"]
    assert out["common_workloads"] == [w.uuid for w in ws[:3]]
    ret, ref = out["candidates"]["retained"], out["candidates"]["reference"]
    assert ret["speedup_vs_reference"] == pytest.approx(5.0) and ret["speedup_workloads"] == 3
    assert ret["ratios"]["reference"] == {"ratio": pytest.approx(5.0), "workloads": 3}
    assert ref["ratios"]["retained"]["ratio"] == pytest.approx(0.2)
    assert ret["ratios"]["broken"] == {"ratio": None, "workloads": 0}
    assert ref["mean_ms"] == pytest.approx(0.05 * 7.5) and ref["common_mean_ms"] == pytest.approx(0.1)
    assert out["candidates"]["broken"]["status_counts"] == {"RUNTIME_ERROR": 14}
    assert out["candidates"]["flashinfer"]["note"] == probe["error"] + " (FlashInfer kernels)"
    assert out["candidates"]["flashinfer"]["role"] == "external"
    assert "deep_gemm" not in out["candidates"]  # DeepGEMM serves the DSA indexer only, not rmsnorm
    bands = out["bands"]
    assert bands["ceilings"] == "NVIDIA H200"
    lat = {w.uuid: 0.01 * (i + 1) for i, w in enumerate(ws[:3])}
    roof = load_roofline(op.path)
    assert sum(b["candidates"]["retained"]["roofline"]["n"] for b in bands["bands"]) == 3
    # latencies per band compare on the common set; a roofline fraction uses all of a candidate's passes
    assert sum(b["common"] for b in bands["bands"]) == 3
    assert sum(b["candidates"]["reference"]["roofline"]["n"] for b in bands["bands"]) == 14
    assert "broken" not in bands["bands"][0]["candidates"]
    # a band without a common workload shows each candidate's own passes, counted
    bare = [b for b in bands["bands"] if not b["common"]]
    assert bare
    for band in bare:
        own = [0.05 * (i + 1) for i, w in enumerate(ws) if band["low"] <= w.axes["batch_size"] <= band["high"]]
        assert band["candidates"]["reference"]["mean_ms"] == pytest.approx(sum(own) / len(own))
        assert band["candidates"]["reference"]["own_n"] == len(own)
        assert band["candidates"]["retained"]["mean_ms"] is None and band["candidates"]["retained"]["own_n"] == 0
    for band in bands["bands"]:
        rf = band["candidates"]["retained"]["roofline"]
        if not rf["n"]:
            continue
        uuids = [u for u in lat if band["low"] <= op.workload(u).axes["batch_size"] <= band["high"]]
        nbytes = sum(roof({"hidden_size": 4096, **op.workload(u).axes})["bytes"] for u in uuids)
        seconds = sum(lat[u] for u in uuids) / 1e3
        assert rf["limiter"] == "memory"  # rmsnorm: bytes dominate on the H200
        assert rf["achieved_bytes_per_s"] == pytest.approx(nbytes / seconds)
        assert rf["fraction"] == pytest.approx(nbytes / seconds / 4.330256e12)  # = bound / measured
    md = mod.operator_markdown(RMSNORM, {"swept": 14, "workloads": 14, "settings_line": "official", **out})
    assert "- broken: KeyError: x" in md and "ceilings NVIDIA H200" in md
    assert f" (own, n={bare[0]['candidates']['reference']['own_n']}) |" in md


# --------------------------------------------------------------------------- candidates
def test_candidates_retained_folder_then_baselines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = _contest()
    src = REPO / "operators" / RMSNORM
    dst = tmp_path / RMSNORM
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "seeds"))
    seed = load_seed(src / "solutions" / "seeds" / "rmsnorm_rowwise", definition=RMSNORM).instantiate(None)
    (dst / "retained").mkdir()
    (dst / "retained" / "solution.json").write_text(seed.model_dump_json())
    monkeypatch.setenv("KERNELOPT_OPERATORS_DIR", str(tmp_path))
    op = load_operator(RMSNORM)
    cands = mod.load_candidates(op, None, None)
    assert [c.label for c in cands] == ["retained", "reference", "torch_compile"]
    assert cands[0].solution.hash() == seed.hash() and cands[0].source == str(dst / "retained")
    override = mod.load_candidates(op, REPO / SEED, ["reference"])
    assert [c.label for c in override] == ["retained", "reference"] and override[0].source == SEED
    assert [c.label for c in mod.load_candidates(op, REPO / SEED, ["torch_compile"], False)] == ["torch_compile"]
    with pytest.raises(mod.UsageError, match="no baseline"):
        mod.load_candidates(op, None, ["fla"])


# --------------------------------------------------------------------------- command-line errors
def test_unknown_operator_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert _contest().main(["--operators", "no_such_op", "--executor", "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("contest.py: error: unknown operator 'no_such_op'")


def test_missing_solution_path_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    rc = _contest().main(["--operators", RMSNORM, "--executor", "cpu", "--solution", f"{RMSNORM}=nope/x"])
    assert rc == 2
    assert "nope/x does not exist" in capsys.readouterr().err
    rc = _contest().main(["--operators", RMSNORM, "--executor", "cpu", "--solution", "nope"])
    assert rc == 2 and "expected DEF=PATH" in capsys.readouterr().err


def test_failure_line_is_the_verdict_even_when_warnings_follow_it() -> None:
    """torch.compile prints warnings after the harness's verdict: the table still shows the verdict."""
    sys.path.insert(0, str(REPO))
    from benchmarks._common import failure_log, verdict_line

    log = "[solution output]\nREJECTED: spawned threads during timing: ['x']\n" + "W1130 dynamo warning\n" * 60
    r = WorkloadResult(uuid="u", axes={}, status=EvaluationStatus.REJECTED, log=log)
    text = failure_log(r)
    assert text.startswith("REJECTED: spawned threads") and text.endswith(log[-600:])
    assert verdict_line(text) == "REJECTED: spawned threads during timing: ['x']"
    assert verdict_line("just a warning") is None
    ok = WorkloadResult(uuid="u", axes={}, status=EvaluationStatus.RUNTIME_ERROR, log="boom\nRUNTIME_ERROR: bad")
    assert failure_log(ok) == "boom\nRUNTIME_ERROR: bad"


class _TimeoutExecutor(_FakeExecutor):
    """TIMEOUT on every workload of one batch size, PASSED elsewhere."""

    def __init__(self, slow_batch: int) -> None:
        super().__init__()
        self.slow = slow_batch

    def evaluate(self, request):  # type: ignore[no-untyped-def]
        res = super().evaluate(request)
        w = request.workloads[0]
        if w.axes["batch_size"] == self.slow:
            res.results[0] = WorkloadResult(uuid=w.uuid, axes=w.axes, status=EvaluationStatus.TIMEOUT, log="TIMEOUT: x")
        return res


def test_a_timed_out_shape_is_not_evaluated_again_and_is_counted(tmp_path: Path) -> None:
    mod = _contest()
    op = load_operator("gdn_decode_qk4_v8_d128_k_last")  # several workloads per batch size (fake executor)
    from collections import Counter

    slow, n = next((b, k) for b, k in Counter(w.axes["batch_size"] for w in op.workloads).items() if k >= 2)
    cands = _candidates(mod, op, ["a"])
    order = mod.sweep_order(op.workloads)
    ex = _TimeoutExecutor(slow)
    runs = mod.sweep(ex, op, cands, HarnessSettings(), order, 1e9, tmp_path)
    called = [u for _, u in ex.calls]
    by_uuid = {w.uuid: w for w in op.workloads}
    assert sum(by_uuid[u].axes["batch_size"] == slow for u in called) == 1  # one TIMEOUT, the rest skipped
    assert len(called) == len(op.workloads) - (n - 1)
    row = mod.compare(op, cands, runs, [w.uuid for w in order], {"flashinfer": {"importable": False, "error": "x"}})
    assert row["candidates"]["a"]["skipped_same_shape_as_timeout"] == n - 1
    # resumed from the traces: the timed-out shape is still skipped
    ex2 = _TimeoutExecutor(slow)
    mod.sweep(ex2, op, cands, HarnessSettings(), order, 1e9, tmp_path, resume=True)
    assert ex2.calls == []


def test_progress_line_names_a_failures_reason(capsys: pytest.CaptureFixture[str]) -> None:
    mod = _contest()
    op = load_operator(RMSNORM)
    w = op.workloads[0]
    c = _candidates(mod, op, ["reference"])[0]
    budget = mod.Budget(90.0)
    bad = WorkloadResult(uuid=w.uuid, axes=w.axes, status=EvaluationStatus.REJECTED,
                         log="REJECTED: threads worked during timing\nUserWarning: later library noise")
    mod._progress(op.name, 0, 2, c, bad, budget)
    mod._progress(op.name, 1, 2, c, _result(w, None), budget)
    mod._progress(op.name, 1, 2, c, _result(w, 0.5), budget)
    err = capsys.readouterr().err.splitlines()
    assert "REJECTED (REJECTED: threads worked during timing)" in err[0]
    assert "RUNTIME_ERROR (KeyError: x)" in err[1] and "PASSED 0.5000 ms" in err[2]


def test_a_record_cut_mid_write_is_dropped_and_evaluated_again(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A device call killed at its limit can leave the last trace line unfinished; resuming drops it (and
    rewrites the file), a rebuild ignores it; a malformed line elsewhere is still an error."""
    mod = _contest()
    src = REPO / "benchmarks/results/traces_contest_h200/moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
    lines = (src / "reference.jsonl").read_text().splitlines(keepends=True)[:3]
    path = tmp_path / "reference.jsonl"
    path.write_text("".join(lines[:2]) + lines[2][:150])
    assert len(mod.read_traces(path)) == 2 and path.read_text().endswith(lines[2][:150])  # rebuild: untouched
    assert len(mod.read_traces(path, repair=True)) == 2 and path.read_text() == "".join(lines[:2])
    assert "unfinished last record" in capsys.readouterr().err
    path.write_text(lines[0][:100] + "\n" + lines[1])
    with pytest.raises(mod.UsageError, match="not a readable trace file"):
        mod.read_traces(path, repair=True)


def test_workloads_option_cuts_the_sweep_and_checks_its_uuids(tmp_path: Path) -> None:
    """--workloads UUID...: only those workloads are swept or rebuilt (here from the committed H200 traces of
    the indexer); a UUID of no selected operator, or an operator left with none, is a usage error."""
    mod = _contest()
    idx = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
    op = load_operator(idx)
    pick = [w.uuid for w in op.workloads[3:6]]
    base = ["--operators", idx, "--solution", f"{idx}=operators/{idx}/solutions/seeds/dsa_indexer_scores",
            "--from-traces", str(REPO / "benchmarks" / "results" / "traces_contest_h200"), "--out", str(tmp_path),
            "--name", "w"]
    assert mod.main(base + ["--workloads", pick[0], "not-a-uuid"]) == 2
    assert mod.main(base + ["--operators", idx, RMSNORM, "--workloads", *pick]) == 2
    args = mod.argparse.Namespace(workloads=pick, max_workloads=None)
    assert {w.uuid for w in mod.selected(op, args)} == set(pick)
    assert [w.uuid for w in mod.ordered(op, 1, set(pick))] == [min(op.workloads[3:6], key=workload_size).uuid]
    assert mod.main(base + ["--workloads", *pick]) == 0
    data = json.loads((tmp_path / "contest_w.json").read_text())
    assert sorted(data["operators"][idx]["common_workloads"]) == sorted(pick)
    # the title names the GPU of the traces, not this machine's; the retained kernel and the reference were
    # measured in different device calls, and the table says so
    md = (tmp_path / "contest_w.md").read_text()
    assert md.startswith("# Contest table (h200)\n") and "Not all in one period" in md


def test_contest_report_run_as_a_script_points_at_contest_py(tmp_path: Path) -> None:
    """``python benchmarks/contest_report.py --help`` printed nothing and exited 0 (it is a library)."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "contest_report.py"
    for args in ([], ["--help"]):
        proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, check=False,
                              cwd=tmp_path, timeout=120)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.startswith("contest_report.py: error: ") and len(proc.stderr.strip().splitlines()) == 1
        assert "python benchmarks/contest.py --from-traces DIR" in proc.stderr


def test_candidates_are_timed_beside_the_retained_kernel_with_pairwise_ratios(tmp_path: Path) -> None:
    """--candidates LABEL=PATH: more solutions of the one operator swept (here a seed point), interleaved per
    workload with the retained kernel, each its own row, trace file and pairwise ratios."""
    cmd = [sys.executable, str(SCRIPT), "--operators", RMSNORM, "--executor", "cpu", "--preset", "quick",
           "--solution", f"{RMSNORM}={SEED}", "--no-baselines", "--candidates", f"two_pass={SEED}@variant=two_pass",
           "--max-workloads", "1", "--budget-s", "60", "--out", str(tmp_path), "--name", "cands",
           "--traces", str(tmp_path / "tr")]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    cands = json.loads((tmp_path / "contest_cands.json").read_text())["operators"][RMSNORM]["candidates"]
    assert set(cands) == {"retained", "two_pass"}
    two = cands["two_pass"]
    assert two["role"] == "candidate" and two["source"] == f"{SEED}@variant=two_pass"
    assert two["status_counts"] == {"PASSED": 1} and two["solution"] != cands["retained"]["solution"]
    assert two["ratios"]["retained"]["ratio"] == pytest.approx(cands["retained"]["common_mean_ms"]
                                                               / two["common_mean_ms"])
    assert [t.evaluation.status.value for t in load_traces(tmp_path / "tr" / RMSNORM / "two_pass.jsonl")] == ["PASSED"]
    assert "| two_pass |" in (tmp_path / "contest_cands.md").read_text()
    # rebuilt from the traces with the same candidates: the same figures
    again = [a for a in cmd if a not in ("--executor", "cpu", "--preset", "quick")]
    again[again.index("--traces")] = "--from-traces"
    again[again.index("cands")] = "rebuilt"
    proc = subprocess.run(again, cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rebuilt = json.loads((tmp_path / "contest_rebuilt.json").read_text())["operators"][RMSNORM]["candidates"]
    assert rebuilt["two_pass"]["per_workload"] == pytest.approx(two["per_workload"])
    assert rebuilt["two_pass"]["role"] == "candidate"


@pytest.mark.parametrize("args, words", [
    (["--candidates", "a"], "expected LABEL=PATH"),
    (["--candidates", f"retained={SEED}"], "the label must be"),
    (["--candidates", f"a/b={SEED}"], "the label must be"),
    (["--candidates", f"a={SEED}", f"a={SEED}@num_warps=4"], "given twice"),
    (["--candidates", "a=operators/nope"], "does not exist"),
    (["--candidates", f"reference={SEED}"], "the label must be"),
    (["--candidates", f"torch_compile={SEED}"], "taken by a baseline"),
    (["--candidates", f"a={SEED}@num_warps=3"], "not a loadable solution"),
    (["--operators", RMSNORM, "gemm_n4096_k4096", "--candidates", f"a={SEED}"], "needs one operator"),
])
def test_bad_candidates_are_one_line_usage_errors(args: list[str], words: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    mod = _contest()
    argv = ["--operators", RMSNORM, "--executor", "cpu", "--no-baselines", "--out", str(tmp_path), *args]
    assert mod.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("contest.py: error: ") and words in err, err
    assert not list(tmp_path.iterdir())
