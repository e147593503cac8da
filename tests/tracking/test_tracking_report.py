"""Leaderboards and report PNGs (matplotlib Agg), logged to the campaign run."""

from __future__ import annotations

import json

import pytest
from tracking_helpers import (
    DEFINITION,
    UUIDS,
    make_result,
    make_solution,
    params,
    png_colors,
)

from kernelopt.tracking import plots


def _campaign(store, mode: str, lats: list[list[float | None]]) -> tuple[str, list[str]]:
    camp = store.start_campaign(DEFINITION, {"agent": {"mode": mode}}, {})
    ids = []
    for i, lat in enumerate(lats):
        sol = make_solution(f"{mode}-{i}", block=16 * (i + 1) + (1000 if mode == "full" else 0))
        ids.append(store.log_candidate(camp, sol, make_result(sol, lat), stage="sweep", params=params()))
    return camp, ids


def test_best_so_far():
    assert plots.best_so_far([None, 3.0, 4.0, None, 2.0, 2.5]) == [None, 3.0, 3.0, 3.0, 2.0, 2.0]


@pytest.mark.parametrize(("values", "minor_labels"), [([0.5, 3.0, None], True), ([0.0042, 48.0, 5600.0], False)])
def test_speedup_axis_labels_minor_ticks_only_within_a_decade(values, minor_labels):
    """Over several decades (a CPU campaign's 0.0042x beside a GPU's 5,600x) each decade's 2x..9x labels
    overlapped into a smear on speedups.png."""
    from matplotlib.figure import Figure

    ax = Figure().add_subplot(1, 1, 1)
    ax.bar(range(len(values)), [v or 0.0 for v in values])
    plots._speedup_axis(ax, values)
    minor = [t for t in ax.yaxis.get_minor_formatter().format_ticks(ax.yaxis.get_minorticklocs()) if t]
    assert bool(minor) is minor_labels, minor
    assert ax.yaxis.get_major_formatter()(10.0, 0) == "10x"


def test_leaderboard_orders_passing_by_latency_then_failing(store):
    camp, ids = _campaign(store, "assisted", [[3.0, 3.0], [1.0, None], [2.0, 2.0], [None, None], [1.0, 1.0]])
    board = store.leaderboard(camp)
    assert [r["run_id"] for r in board] == [ids[4], ids[2], ids[0], ids[1], ids[3]]
    assert [r["rank"] for r in board] == [1, 2, 3, 4, 5]
    assert board[0]["mean_latency_ms"] == 1.0 and board[0]["all_passed"] and board[0]["generator"] == "offline"
    assert board[3]["mean_latency_ms"] is None and board[3]["pass_count"] == 1
    assert board[3]["failure"] == f"RUNTIME_ERROR: Traceback: boom on {UUIDS[1]}"
    assert board[0]["failure"] is None  # why a candidate failed travels with its row (campaign summaries print it)
    other, oids = _campaign(store, "full", [[0.5, 0.5]])
    by_def = store.leaderboard(DEFINITION)
    assert by_def[0]["run_id"] == oids[0] and len(by_def) == 6
    assert {r["campaign"] for r in by_def} == {camp, other}
    sol = make_solution("assisted-4", block=16 * 5)  # same solution again at the repeat stage
    store.log_candidate(camp, sol, make_result(sol, [1.2, 1.2]), stage="repeat", params=params())
    assert len(store.leaderboard(camp)) == 6 and len(store.leaderboard(camp, by_solution=True)) == 5
    with pytest.raises(ValueError, match="neither a campaign run id nor a definition"):
        store.leaderboard("no_such_definition")


def test_a_definitions_leaderboard_lists_an_adopted_run_once(store):
    """Campaigns that adopt an earlier campaign's run (and adopt the adoption) measured it once: one row over
    the definition, the source's; each campaign's own leaderboard keeps its copy."""
    _, (orig,) = _campaign(store, "assisted", [[1.0, 1.0]])
    second = store.start_campaign(DEFINITION, {}, {})
    copy = store.adopt_candidate(second, orig)
    third = store.start_campaign(DEFINITION, {}, {})
    copy2 = store.adopt_candidate(third, copy)
    assert [r["run_id"] for r in store.leaderboard(DEFINITION)] == [orig]
    assert [r["run_id"] for r in store.leaderboard(second)] == [copy]
    assert [r["run_id"] for r in store.leaderboard(third)] == [copy2]


def test_leaderboard_ranks_gates_over_fewer_workloads_after_full_sweeps(store):
    """A gate's mean over one small workload is not comparable with a sweep's over all of them."""
    camp, ids = _campaign(store, "assisted", [[3.0, 3.0, 3.0], [2.0, 2.0, 2.5]])
    sol = make_solution("gated", block=999)
    gate = store.log_candidate(camp, sol, make_result(sol, [0.5]), stage="gate", params=params())
    board = store.leaderboard(camp)
    assert [r["run_id"] for r in board] == [ids[1], ids[0], gate]


def test_write_report_pngs_and_artifacts(store, tmp_path):
    camp, ids = _campaign(store, "assisted", [[3.0, 3.0, 3.0], [None, 1.0, 1.0], [2.0, 1.5, 1.0], [1.0, 1.0, 2.0]])
    full, _ = _campaign(store, "full", [[4.0, 4.0, 4.0], [3.5, 3.0, 3.0], [None, None, None]])
    base = make_solution("torch_compile", block=999, seed=False)
    store.log_candidate(full, base, make_result(base, [4.0, 2.0, 8.0]), stage="sweep",
                        params=params(baseline="torch_compile"))
    store.set_champion(DEFINITION, store.register(DEFINITION, ids[3], {}))

    uuids, series = store.champion_speedups(DEFINITION)
    assert uuids == sorted(UUIDS)
    want_tc = {UUIDS[0]: 4.0 / 1.0, UUIDS[1]: 2.0 / 1.0, UUIDS[2]: 8.0 / 2.0}
    assert series["vs torch_compile"] == [pytest.approx(want_tc[u]) for u in uuids]
    want_ref = {UUIDS[0]: 2.0, UUIDS[1]: 2.0, UUIDS[2]: 1.0}
    assert series["vs reference"] == [pytest.approx(want_ref[u]) for u in uuids]

    files = store.write_report(camp, tmp_path / "report", compare=[full], labels=["assisted", "full"])
    keep = tmp_path.parent / "kept-report"  # for eyeballing the plots after a run
    keep.mkdir(exist_ok=True)
    for f in files.values():
        (keep / f.name).write_bytes(f.read_bytes())
    assert set(files) == {"leaderboard", "progress", "speedups", "campaigns"}
    for key in ("progress", "speedups", "campaigns"):
        size, colors = png_colors(files[key])
        assert size[0] > 500 and size[1] > 300 and colors > 20, (key, size, colors)
        assert files[key].stat().st_size > 10_000
    assert json.loads(files["leaderboard"].read_text())[0]["run_id"] == ids[3]
    logged = {f.path for f in store.client.list_artifacts(camp, "report")}
    assert logged == {"report/leaderboard.json", "report/progress.png", "report/speedups.png",
                      "report/campaigns.png"}
    assert store.progress(camp) == [3.0, None, 1.5, pytest.approx(4 / 3)]


def test_write_report_without_champion_or_out_dir(store):
    camp, _ = _campaign(store, "assisted", [[None], [2.0]])
    files = store.write_report(camp)
    assert set(files) == {"leaderboard", "progress"}
    assert {f.path for f in store.client.list_artifacts(camp, "report")} == {
        "report/leaderboard.json", "report/progress.png"}
    with pytest.raises(ValueError, match="1 labels for 2 campaigns"):
        store.write_report(camp, compare=[camp], labels=["only-one"])


def test_an_included_solution_reads_include_not_baseline_on_the_leaderboard(store):
    """A `campaign.include` solution is gated in the baseline round (direction `baseline`, generator `include`): its
    rows say `include`, so the retained kernel a campaign promoted (calls HA / HC) is not read as a seed's default."""
    camp = store.start_campaign(DEFINITION, {}, {})
    seed, kept = make_solution("seed-default", block=16), make_solution("retained", block=32)
    store.log_candidate(camp, seed, make_result(seed, [2.0, 2.0]), stage="gate",
                        params={**params(), "direction": "baseline"})
    store.log_candidate(camp, kept, make_result(kept, [1.0, 1.0]), stage="gate",
                        params={**params(), "direction": "baseline", "generator": "include"})
    board = {r["name"]: r for r in store.leaderboard(camp)}
    assert board["retained"]["direction"] == "include" and board["seed-default"]["direction"] == "baseline"


def test_report_of_an_operator_writes_its_latest_campaigns_files(store, tmp_path, capsys):
    """`kernelopt report <operator>`: the files are the latest campaign's, said on screen (it wrote the oldest's)."""
    from kernelopt.cli.report import report

    first, _ = _campaign(store, "assisted", [[2.0, 2.0]])
    latest, _ = _campaign(store, "full", [[1.0, 1.0]])
    assert report(DEFINITION, tracking_uri=store.tracking_uri, out_dir=str(tmp_path / "r")) == 0
    assert (tmp_path / "r" / latest).is_dir() and not (tmp_path / "r" / first).exists()
    assert f"latest campaign {latest} (of 2;" in capsys.readouterr().out
