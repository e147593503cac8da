"""benchmarks/controller_efficiency.py: the table mode replays the searches over a measured latency table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]


def _module():
    sys.path.insert(0, str(REPO / "benchmarks"))
    return load_script("controller_efficiency", REPO / "benchmarks" / "controller_efficiency.py")


def _table(mod, path: Path, drop: int = 0) -> list:
    """A complete table for rmsnorm_h4096 on 4 workloads, values from the synthetic model (as if measured)."""
    syn = mod.SyntheticEval("rmsnorm_h4096")
    uuids = [w.uuid for w in syn.op.workloads[:4]]
    pts = mod.space_points("rmsnorm_h4096")
    lat = {s.hash(): {u: syn.true_ms(s, u) for u in uuids} for s in pts[drop:]}
    first = pts[0].hash()
    if not drop:
        lat[first][uuids[0]] = None  # one failed workload: never the best
    path.write_text(json.dumps({"operator": "rmsnorm_h4096", "workloads": uuids, "device": "NVIDIA H200",
                                "latency_ms": lat}))
    return pts


def test_table_mode_replays_searches_over_measured_latencies(tmp_path: Path) -> None:
    mod = _module()
    table = tmp_path / "t.json"
    pts = _table(mod, table)
    out = mod.main(["--mode", "table", "--table", str(table), "--seeds", "3", "--budget", "8", "--out",
                    str(tmp_path)])
    assert out["mode"] == "table" and len(out["rows"]) == 3 and "NVIDIA H200" in out["label"]
    ev = mod.TableEval(table)
    assert len(ev.op.workloads) == 4 and ev.true_mean(pts[0]) == float("inf")
    best = min(ev.true_mean(s) for s in pts)
    for row in out["rows"]:
        assert row["random_final_best_ms"] >= best and 1 <= row["random_needed"] <= 8
        assert row["evidence_best_ms"] >= best
    md = (tmp_path / "controller_efficiency_t_measured_b8.md").read_text()
    assert "--mode table" in md and "--table" in md


def test_incomplete_table_is_refused_with_the_missing_points(tmp_path: Path) -> None:
    mod = _module()
    table = tmp_path / "t.json"
    _table(mod, table, drop=5)
    with pytest.raises(SystemExit, match="5 valid points of the seed space not measured"):
        mod.TableEval(table)


def test_fixed_sub_space_is_the_only_space_every_arm_searches(tmp_path: Path) -> None:
    """--fix: a table over a sub-space (rmsnorm with num_warps fixed); random search, the start point and
    the controllers' proposals all stay inside it (a point outside would be a KeyError in TableEval)."""
    mod = _module()
    full = mod.space_points("rmsnorm_h4096")
    fix = mod.parse_fix(["num_warps=4"])
    assert fix == {"num_warps": 4}
    sub = mod.space_points("rmsnorm_h4096", fix)
    assert 0 < len(sub) < len(full)
    assert all(mod.kernelopt_extra(s)["params"]["num_warps"] == 4 for s in sub)
    syn = mod.SyntheticEval("rmsnorm_h4096")
    uuids = [w.uuid for w in syn.op.workloads[:4]]
    table = tmp_path / "sub.json"
    table.write_text(json.dumps({"operator": "rmsnorm_h4096", "workloads": uuids, "device": "NVIDIA H200",
                                 "fix": fix, "latency_ms": {s.hash(): {u: syn.true_ms(s, u) for u in uuids}
                                                            for s in sub}}))
    out = mod.main(["--mode", "table", "--table", str(table), "--seeds", "3", "--budget", "10", "--out",
                    str(tmp_path)])
    assert out["fix"] == fix and all(r["evidence_gated"] >= 1 for r in out["rows"])
    assert "num_warps=4" in (tmp_path / "controller_efficiency_sub_measured_b10.md").read_text()
    with pytest.raises(SystemExit, match="not in the seed space"):
        mod.space_seed("rmsnorm_h4096", {"num_warps": 3})
    with pytest.raises(SystemExit, match="another operator, seed, workload set or --fix"):
        mod.measure_space("rmsnorm_h4096", table, 4, {"num_warps": 8})


def test_dispatch_candidates_run_their_bands_specialist_per_workload() -> None:
    """In table mode the controller's dispatch is composed as the campaign composes it, and measures on each
    workload what its band's specialist measured there (nested dispatches resolve to a point)."""
    from kernelopt.generators.dispatch import compose_dispatch

    mod = _module()
    ev = mod.TableEval(REPO / "benchmarks" / "results" / "controller_space_gdn_decode_h200.json")
    pts = mod.space_points(ev.op.name)
    small, large = pts[0], pts[-1]
    wl = {w.uuid: w.axes["batch_size"] for w in ev.op.workloads}
    d = compose_dispatch(ev.op.definition, [small, large], [16], "batch_size")
    ev.add_dispatch(d, [small, large])
    got = ev.evaluate(d, list(wl), 0)
    for u, b in wl.items():
        assert got[u] == ev.evaluate(small if b <= 16 else large, [u], 0)[u]
    assert ev.true_mean(d) == pytest.approx(sum(got.values()) / len(got))
    outer = compose_dispatch(ev.op.definition, [large, d], [4], "batch_size")
    ev.add_dispatch(outer, [large, d])
    got = ev.evaluate(outer, list(wl), 0)
    for u, b in wl.items():
        want = large if b <= 4 or b > 16 else small
        assert got[u] == ev.evaluate(want, [u], 0)[u]


def test_the_replay_gates_each_candidate_on_its_decisions_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    """As a campaign does (``campaign_steps``: ``decision.workloads or state.gate_workloads``): a band round's
    candidates are gated on the decision's workloads (the band's gate and the campaign's), not on the campaign's
    gate alone (the replay did that until 2026-12-04, so its band rounds were judged on other workloads than a
    campaign's)."""
    mod = _module()
    ev = mod.TableEval(REPO / "benchmarks" / "results" / "controller_space_gdn_decode_cuda_h200.json")
    op = ev.op.name
    gate = [w.uuid for w in mod.representative(ev.op.workloads, 3)]
    asked: list[list[str]] = []  # each generate decision's gate workloads
    gated: list[list[str]] = []  # each gate run's
    real_decide = mod.decide

    def spy_decide(state, budget, rules):
        d = real_decide(state, budget, rules)
        if d.action == "generate":
            asked.append(list(d.workloads) or gate)
        return d

    real_eval = ev.evaluate

    def spy_eval(sol, uuids, run):
        if len(uuids) < len(ev.op.workloads):
            gated.append(list(uuids))
        return real_eval(sol, uuids, run)

    monkeypatch.setattr(mod, "decide", spy_decide)
    monkeypatch.setattr(ev, "evaluate", spy_eval)
    fix = ev.fix or None
    mod.run_controller(op, ev, 12, 0, True, None, mod.start_point(op, 0, fix), fix)
    banded = [w for w in asked if set(w) != set(gate)]
    assert banded, "some round is gated on a band (the GDN decode table has three batch-size bands)"
    assert all(set(gate) < set(w) for w in banded)  # the band's gate joins the campaign's
    runs = set(map(tuple, gated))
    assert runs <= set(map(tuple, asked))  # every gate run used a decision's workloads
    assert any(tuple(w) in runs for w in banded)


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """stderr of a table-mode run over ``tmp_path/t.json`` refused before any work (exit 2, nothing written)."""
    mod = _module()
    table = tmp_path / "t.json"
    _table(mod, table)
    with pytest.raises(SystemExit) as exc:
        mod.main(["--mode", "table", "--table", str(table), "--out", str(tmp_path), *argv])
    assert exc.value.code == 2 and not list(tmp_path.glob("controller_efficiency_*"))
    return capsys.readouterr().err


def test_fix_in_table_mode_is_refused_not_ignored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "sub-space recorded in the table" in _refused(tmp_path, capsys, "--fix", "num_warps=4")


def test_a_rule_override_reaches_the_controller_and_names_its_result_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mod = _module()
    table = tmp_path / "t.json"
    _table(mod, table)
    seen = []
    real = mod.Rules

    def spy(**kw):  # the Rules each controller arm is built with
        seen.append(kw)
        return real(**kw)

    mod.Rules = spy
    try:
        out = mod.main(["--mode", "table", "--table", str(table), "--seeds", "1", "--budget", "6", "--out",
                        str(tmp_path), "--rule", "defer_lost_after=2"])
    finally:
        mod.Rules = real
    assert {k: v for k, v in out["rules"].items() if k != "repair_directions"} == {"probe_candidates": 1, "defer_lost_after": 2}
    assert out["rules"]["repair_directions"] == mod.load_failure_table()
    assert len(seen) >= 3 and all(kw.get("defer_lost_after") == 2 for kw in seen)  # the check, then both arms
    md = (tmp_path / "controller_efficiency_t_measured_b6_defer_lost_after2.md").read_text()
    assert "--rule defer_lost_after=2" in md and "defer_lost_after=2 (the rest" in md
    with pytest.raises(SystemExit):
        mod.main(["--mode", "table", "--table", str(table), "--out", str(tmp_path),
                  "--rule", "no_such_rule=1"])
    assert "--rule" in capsys.readouterr().err


def test_fractional_rule_values_name_distinct_result_files(tmp_path: Path) -> None:
    """Two ablations of one rule (min_improvement 0.002 and 0.005) write two result files: the value's dot was taken
    for the file suffix, so both wrote ``..._min_improvement0.json`` and the second replaced the first."""
    mod = _module()
    table = tmp_path / "t.json"
    _table(mod, table)
    for value in ("0.002", "0.005"):
        mod.main(["--mode", "table", "--table", str(table), "--seeds", "1", "--budget", "6", "--out", str(tmp_path),
                  "--rule", f"min_improvement={value}"])
    got = sorted(p.name for p in tmp_path.glob("controller_efficiency_t_*.json"))
    assert got == ["controller_efficiency_t_measured_b6_min_improvement0p002.json",
                   "controller_efficiency_t_measured_b6_min_improvement0p005.json"]
    assert json.loads((tmp_path / got[0]).read_text())["rules"]["min_improvement"] == 0.002


def test_measure_records_why_a_point_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A point that fails on every workload leaves a hole in the table: its statuses and the tail of its log are
    kept beside it (the real harness, CPU executor; the space is cut to one passing and one wrong kernel)."""
    from kernelopt.cli.tasks import load_solution_arg

    mod = _module()
    fix = REPO / "tests" / "fixtures" / "solutions"
    sols = [load_solution_arg(str(fix / "rmsnorm_triton_ok"), None),
            load_solution_arg(str(fix / "rmsnorm_triton_no_weight"), None)]
    monkeypatch.setattr(mod, "space_points", lambda operator, fix=None: sols)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    table = tmp_path / "t.json"
    data = mod.measure_space("rmsnorm_h4096", table, 1, None)
    ok, bad = (s.hash() for s in sols)
    assert ok not in data.get("failed", {}) and all(v is not None for v in data["latency_ms"][ok].values())
    assert data["failed"][bad]["statuses"] == {"INCORRECT_NUMERICAL": 1}
    assert json.loads(table.read_text())["failed"][bad]["log"]
    assert data["failed"][bad]["failure"].startswith("INCORRECT_NUMERICAL: ")  # what the repair table matches
    capsys.readouterr()
    mod.measure_space("rmsnorm_h4096", table, 1, None)
    assert "2 points measured, 0 to go" in capsys.readouterr().out
    again = mod.measure_space("rmsnorm_h4096", table, 1, None, retry_failed=True)
    assert "2 points measured, 1 to go" in capsys.readouterr().out and again["failed"][bad]["statuses"]


def test_measure_takes_a_sub_space_table_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """--from-table: a table of the whole space starts from the points of a sub-space table measured on the same
    workloads and card (each point measured once), records where they came from and every run's stamp; a sub-space
    is cut out of a larger table the same way; a table of another card, one sharing no point with the space, and
    points left to measure on another card than the table's are refused (the real harness, CPU executor)."""
    from kernelopt.cli.tasks import load_solution_arg

    mod = _module()
    fix = REPO / "tests" / "fixtures" / "solutions"
    sols = [load_solution_arg(str(fix / name), None) for name in ("rmsnorm_triton_ok", "rmsnorm_triton_no_weight")]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    sub, full = tmp_path / "sub.json", tmp_path / "full.json"
    monkeypatch.setattr(mod, "space_points", lambda operator, fix=None: sols[:1])
    mod.measure_space("rmsnorm_h4096", sub, 1, None)
    monkeypatch.setattr(mod, "space_points", lambda operator, fix=None: sols)
    capsys.readouterr()
    data = mod.measure_space("rmsnorm_h4096", full, 1, None, base=sub)
    out = capsys.readouterr().out
    assert "1 points taken from" in out and "1 points measured, 1 to go" in out
    first = json.loads(sub.read_text())
    assert data["latency_ms"][sols[0].hash()] == first["latency_ms"][sols[0].hash()]
    assert data["from_tables"] == [{"table": str(sub), "points": 1, "stamps": first["stamps"]}]
    assert len(data["stamps"]) == 1 and "(2 measure runs on this card)" in mod.measured_when(data)  # sub's, its own
    assert mod.measured_when(first) == first["stamp"]["date"]
    capsys.readouterr()
    mod.measure_space("rmsnorm_h4096", full, 1, None, base=sub)  # resumed: nothing new taken, measured or stamped
    again = json.loads(full.read_text())
    assert "0 points taken" in capsys.readouterr().out and len(again["from_tables"]) == 1
    assert again["stamps"] == data["stamps"]
    old = {k: v for k, v in first.items() if k != "stamps"}  # a table written before stamps were kept
    sub.write_text(json.dumps(old))
    mod.measure_space("rmsnorm_h4096", sub, 1, None)  # measures the second point: its run stamped after the first
    assert [st["date"] for st in json.loads(sub.read_text())["stamps"]][:1] == [first["stamp"]["date"]]
    assert len(json.loads(sub.read_text())["stamps"]) == 2
    cut = tmp_path / "cut.json"  # a sub-space cut out of the whole table: taken, nothing measured, its card kept
    monkeypatch.setattr(mod, "space_points", lambda operator, fix=None: sols[1:])
    capsys.readouterr()
    got = mod.measure_space("rmsnorm_h4096", cut, 1, None, base=full)
    assert "1 points taken" in capsys.readouterr().out and list(got["latency_ms"]) == [sols[1].hash()]
    assert (got["device"], got["timer"]) == (data["device"], data["timer"]) and "stamps" not in got  # nothing measured: only full's runs count
    assert mod.measured_when(got) == mod.measured_when(json.loads(full.read_text()))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**first, "device": "NVIDIA H200"}))
    with pytest.raises(SystemExit, match="and device as"):
        mod.measure_space("rmsnorm_h4096", cut, 1, None, base=other)
    only_first = tmp_path / "first.json"
    only_first.write_text(json.dumps(first))
    with pytest.raises(SystemExit, match="none of its points"):
        mod.measure_space("rmsnorm_h4096", tmp_path / "f3.json", 1, None, base=only_first)
    h200 = tmp_path / "h200.json"  # a table never mixes cards: refused before anything runs
    h200.write_text(json.dumps({**first, "device": "NVIDIA H200"}))
    with pytest.raises(SystemExit, match="never mixes cards"):
        mod.measure_space("rmsnorm_h4096", h200, 1, None)
    assert json.loads(h200.read_text()) == {**first, "device": "NVIDIA H200"}


def test_reach_within_counts_near_ties_and_the_censored_ratio_counts_misses(tmp_path: Path) -> None:
    mod = _module()
    table = tmp_path / "t.json"
    _table(mod, table)
    exact = mod.main(["--mode", "table", "--table", str(table), "--seeds", "4", "--budget", "6", "--out",
                      str(tmp_path)])
    loose = mod.main(["--mode", "table", "--table", str(table), "--seeds", "4", "--budget", "6", "--out",
                      str(tmp_path), "--reach-within", "0.5"])
    assert (tmp_path / "controller_efficiency_t_measured_b6_within50pct.md").is_file()
    assert "--reach-within 0.5" in (tmp_path / "controller_efficiency_t_measured_b6_within50pct.md").read_text()
    for a, b in zip(exact["rows"], loose["rows"]):
        assert b["random_needed"] <= a["random_needed"]  # a looser target is reached no later
        assert (a["evidence_needed"] is None) or b["evidence_needed"] <= a["evidence_needed"]
    rows, budget = exact["rows"], 6
    censored = sorted((r["evidence_needed"] or budget + 1) / r["random_needed"] for r in rows)
    assert exact["summary"]["evidence_over_random_median_censored"] == pytest.approx(
        (censored[1] + censored[2]) / 2)
    with pytest.raises(SystemExit):
        mod.main(["--mode", "table", "--table", str(table), "--out", str(tmp_path / "x.json")])


def test_an_operator_with_several_seeds_searches_the_named_one() -> None:
    mod = _module()
    prefill = "gdn_prefill_qk4_v8_d128_k_last"
    n_seeds = len(list((REPO / "operators" / prefill / "solutions" / "seeds").glob("*/seed.json")))
    assert n_seeds > 1
    try:
        with pytest.raises(SystemExit, match=f"{n_seeds} seeds .*--seed-kernel"):
            mod.space_seed(prefill)
        mod.choose_seed(prefill, "gdn_prefill_recurrent")
        assert mod.space_seed(prefill).spec.name == "gdn_prefill_recurrent"
        assert {p.name.rsplit("_", 1)[0] for p in mod.space_points(prefill)} == {"gdn_prefill_recurrent"}
        with pytest.raises(SystemExit, match="not a seed of"):
            mod.choose_seed(prefill, "nope")
    finally:
        mod.choose_seed(prefill, None)
    # the seed a table was measured from: recorded, else read off its point names
    assert mod.table_seed({"seed": "s"}) == "s"
    assert mod.table_seed({"names": {"h1": "gdn_decode_vtile_17f0b93b", "h2": "gdn_decode_vtile_225c0ab1"}}) == \
        "gdn_decode_vtile"
    assert mod.table_seed({"names": {"h1": "a_1", "h2": "b_2"}}) is None


def test_a_result_of_other_seeds_is_not_replaced_without_force(tmp_path: Path) -> None:
    """The file name carries the table and budget only: a 2-seed smoke run replaced a committed 20-seed result."""
    mod = _module()
    table = tmp_path / "t.json"
    _table(mod, table)
    base = ["--mode", "table", "--table", str(table), "--budget", "6", "--out", str(tmp_path)]
    mod.main([*base, "--seeds", "3"])
    result = tmp_path / "controller_efficiency_t_measured_b6.json"
    before = result.read_text()
    with pytest.raises(SystemExit, match=r"holds a result of seeds 3, start random, budget 6; this run's: seeds 1, "
                                         r"start random, budget 6; give another --out folder, or --force"):
        mod.main([*base, "--seeds", "1"])
    assert result.read_text() == before
    assert len(mod.main([*base, "--seeds", "3"])["rows"]) == 3  # the same run again: replaced, as before
    assert len(mod.main([*base, "--seeds", "1", "--force"])["rows"]) == 1
    assert json.loads(result.read_text())["seeds"] == 1


def test_an_operator_other_than_the_tables_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(tmp_path, capsys, "--operator", "gemm_n4096_k4096")
    assert f"--operator gemm_n4096_k4096: the table {tmp_path / 't.json'} is of rmsnorm_h4096" in err, err


@pytest.mark.parametrize(("argv", "says"), [
    (["--budget", "0"], "argument --budget: 0: must be at least 1"),
    (["--seeds", "-3"], "argument --seeds: -3: must be at least 1"),
])
def test_counts_below_one_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv, says) -> None:
    """--budget 0 was a ValueError traceback; --seeds 0 wrote an empty result ('reached 0/0') over the file."""
    assert says in _refused(tmp_path, capsys, *argv)


def test_a_file_that_is_no_table_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mod = _module()
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps({"rows": []}))
    with pytest.raises(SystemExit) as exc:
        mod.main(["--mode", "table", "--table", str(bad), "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert f"--table {bad}: not a --mode measure table: no operator" in capsys.readouterr().err
