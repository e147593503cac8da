"""benchmarks/dispatch_plan.py: the controller's band planner fed trace files (rmsnorm workloads, made-up
latencies with a known answer)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import dispatch_plan

from kernelopt.data import dump_jsonl
from kernelopt.data.trace import Correctness, Environment, Evaluation, Performance, Trace
from kernelopt.data.trace import EvaluationStatus as S
from kernelopt.operators import load_operator

OP = "rmsnorm_h4096"


def _write(path: Path, name: str, latency) -> Path:  # type: ignore[no-untyped-def]
    """A trace file of ``name`` over the operator's workloads: PASSED at ``latency(batch_size)`` ms, or
    INCORRECT_NUMERICAL where that is None."""
    rows = []
    for w in load_operator(OP).workloads:
        ms = latency(w.axes["batch_size"])
        ev = Evaluation(status=S.PASSED if ms else S.INCORRECT_NUMERICAL,
                        environment=Environment(hardware="NVIDIA H200"), timestamp="2026-11-30T00:00:00Z",
                        correctness=Correctness(max_relative_error=0.0, max_absolute_error=0.0),
                        performance=Performance(latency_ms=ms) if ms else None)
        rows.append(Trace(definition=OP, workload=w, solution=name, evaluation=ev))
    dump_jsonl(rows, path)
    return path


def test_a_solution_that_wins_only_small_batches_is_planned_behind_a_dispatch(tmp_path: Path) -> None:
    def small_ms(b: int) -> float:
        return 0.001 if b <= 64 else 0.010 * b / 1000

    def big_ms(b: int) -> float:
        return 0.004 if b <= 64 else 0.005 * b / 1000

    small = _write(tmp_path / "s.jsonl", "small", small_ms)
    big = _write(tmp_path / "b.jsonl", "big", big_ms)
    res = dispatch_plan.main(["--operator", OP, "--traces", f"small={small}", f"big={big}"])
    assert res["best_single"] == "big" and res["planned"] is not None
    assert res["planned"]["specialists"] == ["small", "big"] and res["gain_over_best_single"] > 0.02
    edge = res["planned"]["uppers"][0]
    # the fastest solution on each workload bounds any split: at or below the per-band winners, below either one
    sizes = [w.axes["batch_size"] for w in load_operator(OP).workloads]
    bound = sum(min(small_ms(b), big_ms(b)) for b in sizes) / len(sizes)
    assert res["per_workload_best_mean_ms"] == pytest.approx(bound)
    assert res["per_workload_best_mean_ms"] <= res["per_band_winners_mean_ms"] < min(res["mean_ms"].values())
    assert all(b["winner"] == ("small" if int(b["band"].split()[-1].split("-")[-1]) <= edge else "big")
               for b in res["bands"])


def test_no_dispatch_when_the_gain_is_below_the_noise_floor(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", "a", lambda b: 0.001 * (0.99 if b <= 8 else 1.0) + b * 1e-5)
    b = _write(tmp_path / "b.jsonl", "b", lambda b: 0.001 + b * 1e-5 * 0.999)
    res = dispatch_plan.plan(OP, {"a": a, "b": b}, 0.02)
    assert res["planned"] is None and abs(res["gain_over_best_single"]) < 0.02


def test_bad_input_is_explained(tmp_path: Path) -> None:
    one = _write(tmp_path / "one.jsonl", "one", lambda b: 0.001)
    with pytest.raises(SystemExit, match="at least two"):
        dispatch_plan.main(["--operator", OP, "--traces", f"one={one}"])
    with pytest.raises(SystemExit, match="LABEL=FILE"):
        dispatch_plan.main(["--operator", OP, "--traces", f"one={one}", str(one)])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"evaluation": {}}\n')
    with pytest.raises(SystemExit, match="bad.jsonl:1: not a FlashInfer trace record"):
        dispatch_plan.main(["--operator", OP, "--traces", f"one={one}", f"bad={bad}"])
    mixed = tmp_path / "mixed.jsonl"  # two solutions in one file (the audit's kernelopt-offline default file)
    mixed.write_text(one.read_text() + _write(tmp_path / "two.jsonl", "two", lambda b: 0.002).read_text())
    with pytest.raises(SystemExit, match=r"mixed.jsonl:\d+: solution 'two' after 'one': a trace file per solution"):
        dispatch_plan.main(["--operator", OP, "--traces", f"one={one}", f"mixed={mixed}"])
    none = _write(tmp_path / "none.jsonl", "none", lambda b: None)
    with pytest.raises(SystemExit, match="no workload passed in every trace file"):
        dispatch_plan.main(["--operator", OP, "--traces", f"one={one}", f"none={none}"])


def test_the_contest_objective_plans_what_summed_latency_declines(tmp_path: Path) -> None:
    """GDN prefill's shape: one solution 1.7x faster on small calls whose latencies are a sliver of the sum."""
    fast_small = _write(tmp_path / "s.jsonl", "fast_small", lambda b: 0.001 / 1.7 if b <= 64 else 0.0105 * b / 1000)
    steady = _write(tmp_path / "t.jsonl", "steady", lambda b: 0.001 if b <= 64 else 0.010 * b / 1000)
    args = ["--operator", OP, "--traces", f"fast_small={fast_small}", f"steady={steady}"]
    latency = dispatch_plan.main(args)
    contest = dispatch_plan.main([*args, "--objective", "mean_speedup"])
    assert latency["planned"] is None and latency["gain_over_best_single"] < 0.02
    assert contest["planned"] is not None and contest["planned"]["objective"] == "mean_speedup"
    assert contest["planned"]["specialists"] == ["fast_small", "steady"]
    assert contest["mean_speedup_over_best_single"] == pytest.approx(contest["planned"]["mean_speedup_over_best_single"])
    assert contest["mean_speedup_over_best_single"] > 1.2


def test_a_bad_name_is_refused_before_any_work(tmp_path: Path, capsys) -> None:
    one = _write(tmp_path / "one.jsonl", "one", lambda b: 0.001)
    with pytest.raises(SystemExit) as exc:
        dispatch_plan.main(["--operator", OP, "--traces", f"a={one}", f"b={one}", "--name", "sub/x"])
    out = capsys.readouterr()
    assert exc.value.code == 2 and out.out == "" and "dispatch_plan.py: error: --name sub/x" in out.err


def test_an_unknown_operator_is_one_line(tmp_path: Path, capsys) -> None:
    one = _write(tmp_path / "one.jsonl", "one", lambda b: 0.001)
    with pytest.raises(SystemExit) as exc:
        dispatch_plan.main(["--operator", "nope", "--traces", f"a={one}", f"b={one}"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("dispatch_plan.py: error: ") and len(err.strip().splitlines()) == 1


def test_trace_files_of_another_operator_or_without_traces_are_named(tmp_path: Path) -> None:
    """Both used to end in 'no workload passed in every trace file'."""
    one = _write(tmp_path / "one.jsonl", "one", lambda b: 0.001)
    other = (Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "traces_contest_h200"
             / "gdn_decode_qk4_v8_d128_k_last" / "fla.jsonl")
    with pytest.raises(SystemExit, match=f"{other} holds traces of gdn_decode_qk4_v8_d128_k_last, not {OP}"):
        dispatch_plan.main(["--operator", OP, "--traces", f"one={one}", f"other={other}"])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(SystemExit, match=f"{empty} holds no traces"):
        dispatch_plan.main(["--operator", OP, "--traces", f"one={one}", f"empty={empty}"])


def test_too_few_common_workloads_to_form_bands_is_refused(tmp_path: Path) -> None:
    """One common workload printed 'band axis None', an empty table and 'per-band winners 0.0000 ms'."""
    a = _write(tmp_path / "a.jsonl", "a", lambda b: 0.001 if b == 1 else None)
    b = _write(tmp_path / "b.jsonl", "b", lambda b: 0.002 if b in (1, 7) else None)
    with pytest.raises(SystemExit, match=r"only 1 workload\(s\) passed in every trace file, too few to form bands"):
        dispatch_plan.main(["--operator", OP, "--traces", f"a={a}", f"b={b}"])
    a = _write(tmp_path / "a.jsonl", "a", lambda b: 0.001 if b in (1, 7) else None)
    assert dispatch_plan.plan(OP, {"a": a, "b": b}, 0.02)["band_axis"] == "batch_size"


def test_a_repeated_label_is_refused(tmp_path: Path) -> None:
    """``--traces a=X a=Y b=Z`` silently dropped X."""
    one = _write(tmp_path / "one.jsonl", "one", lambda b: 0.001)
    two = _write(tmp_path / "two.jsonl", "two", lambda b: 0.002)
    with pytest.raises(SystemExit, match="label 'a' given twice"):
        dispatch_plan.main(["--operator", OP, "--traces", f"a={one}", f"a={two}", f"b={two}"])
    with pytest.raises(SystemExit, match="LABEL=FILE"):
        dispatch_plan.main(["--operator", OP, "--traces", f"={one}", f"b={two}"])
