"""benchmarks/search_bound.py: idealised GP-LCB searchers replayed over a measured latency table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]


def _module():
    sys.path.insert(0, str(REPO / "benchmarks"))
    return load_script("search_bound", REPO / "benchmarks" / "search_bound.py")


def test_table_run_and_summary(tmp_path: Path) -> None:
    """Over rmsnorm's committed H200 table: every seed row names each searcher's count (or None), the ratios are
    censored at budget + 1, and the summary pairs the run with no controller file in another folder."""
    mod = _module()
    table = REPO / "benchmarks" / "results" / "controller_space_rmsnorm_h4096_h200.json"
    out = mod.main(["--table", str(table), "--budget", "6", "--seeds", "2", "--out", str(tmp_path)])
    assert out["points"] == len(json.loads(table.read_text())["latency_ms"])
    assert len(out["rows"]) == 2 and len(out["median_ratio_censored"]) == 12
    for row in out["rows"]:
        got = [v for k, v in row.items() if k.startswith(("rbf", "additive"))]
        assert len(got) == 12 and all(v is None or 1 <= v <= 6 for v in got)
    assert all(v <= 7 for v in out["median_ratio_censored"].values())
    for row in out["rows"]:  # the oracle's floor is a lower bound on every searcher's count, seed by seed
        assert row["floor_needed"] in (1, 2)
        assert all(row[k] is None or row[k] >= row["floor_needed"] for k in out["median_ratio_censored"])
    assert out["floor"]["best_first"] <= out["floor"]["start_then_best"] <= min(out["median_ratio_censored"].values())
    assert (tmp_path / "search_bound_rmsnorm_h4096_h200_b6.md").is_file()
    written = json.loads((tmp_path / "search_bound_rmsnorm_h4096_h200_b6.json").read_text())
    assert written["command"] == f"python benchmarks/search_bound.py --table {table} --budget 6 --seeds 2 --out {tmp_path}"
    summary = mod.main(["--summary", "--out", str(tmp_path)])
    assert summary["command"] == f"python benchmarks/search_bound.py --summary --out {tmp_path}"
    assert json.loads((tmp_path / "search_bound_summary.json").read_text())["command"] == summary["command"]
    assert summary["configurations"] == 1
    assert "rmsnorm_h4096_h200 | 6 |" in (tmp_path / "search_bound_summary.md").read_text()
    floor = out["floor"]["start_then_best"]
    text = (tmp_path / "search_bound_summary.md").read_text()
    assert f"rmsnorm_h4096_h200 | 6 | {out['points']} | {floor:.3f} | - |" in text
    assert summary["floor_above_third"] == (["rmsnorm_h4096_h200_b6"] if floor > 1 / 3 + 1e-3 else [])


def test_floor_is_one_when_the_start_reaches_the_target() -> None:
    mod = _module()
    lat = np.array([3.0, 1.0, 2.0])
    assert mod.floor_needed(lat, start=2, target=2.0) == 1
    assert mod.floor_needed(lat, start=0, target=2.0) == 2
    assert mod.floor_needed(lat, start=0, target=1.0) == 2


def test_the_summary_takes_the_controllers_figure_from_its_current_result_file(tmp_path: Path) -> None:
    """A configuration's embedded controller figure goes stale when ``controller_efficiency`` is rerun (as on
    2026-12-04): ``--summary`` refreshes it from the controller's result file, in the run's json and md too."""
    import json

    mod = _module()
    name = "search_bound_gemm_h200_b48.json"
    run = json.loads((REPO / "benchmarks" / "results" / name).read_text())
    current = json.loads((REPO / "benchmarks" / "results" / "controller_efficiency_gemm_h200_measured_b48.json")
                         .read_text())["summary"]["evidence_over_random_median_censored"]
    run["controller"]["median_ratio_censored"] = 9.99  # stale
    (tmp_path / name).write_text(json.dumps(run))
    mod.main(["--summary", "--out", str(tmp_path)])
    fresh = json.loads((tmp_path / name).read_text())
    assert fresh["controller"]["median_ratio_censored"] == current != 9.99
    assert f"**{current:.3f}**" in (tmp_path / name).with_suffix(".md").read_text()
    assert f"| {current:.3f} |" in (tmp_path / "search_bound_summary.md").read_text()


def test_an_out_that_is_a_file_is_refused_before_the_search(tmp_path: Path, capsys) -> None:
    mod = _module()
    table = REPO / "benchmarks" / "results" / "controller_space_rmsnorm_h4096_h200.json"
    (tmp_path / "file").write_text("")
    for argv in (["--table", str(table), "--budget", "6", "--seeds", "1"], ["--summary"]):
        with pytest.raises(SystemExit) as exc:
            mod.main([*argv, "--out", str(tmp_path / "file")])
        out = capsys.readouterr()
        assert exc.value.code == 2 and out.out == "" and "is a file; give a folder" in out.err


@pytest.mark.parametrize("value", ["-1", "0"])
@pytest.mark.parametrize("option", ["--budget", "--seeds"])
def test_budget_and_seeds_below_one_are_refused(tmp_path: Path, capsys, option: str, value: str) -> None:
    """``--budget -1`` wrote a 'perfect' result (every ratio 0), ``--budget 0`` and ``--seeds 0`` were tracebacks."""
    mod = _module()
    table = REPO / "benchmarks" / "results" / "controller_space_rmsnorm_h4096_h200.json"
    with pytest.raises(SystemExit) as exc:
        mod.main(["--table", str(table), option, value, "--out", str(tmp_path)])
    assert exc.value.code == 2 and f"argument {option}: {value}: must be at least 1" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("content", "why"), [
    (None, "no such file"),
    ('{"operator": "rms', "malformed JSON"),
    ("{}", "no operator, workloads, latency_ms"),
    ("[1]", "a JSON list, not an object"),
    ("results", "no workloads, latency_ms"),
    ("folder", "is a folder"),
])
def test_a_bad_table_is_one_line(tmp_path: Path, capsys, content: str | None, why: str) -> None:
    mod = _module()
    table = tmp_path / "t.json"
    if content == "results":  # a search_bound result, not a table
        table.write_text((REPO / "benchmarks" / "results" / "search_bound_gemm_h200_b48.json").read_text())
    elif content == "folder":
        table.mkdir()
    elif content is not None:
        table.write_text(content)
    with pytest.raises(SystemExit) as exc:
        mod.main(["--table", str(table), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1
    assert f"search_bound.py: error: --table {table}: not a --mode measure table: {why}" in err
    assert not (tmp_path / "out").exists()
