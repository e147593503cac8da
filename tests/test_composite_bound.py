"""benchmarks/composite_bound.py on a committed H200 table (CPU replay): a composite of the controller's gated single
points is never later than the controller itself, the unconstrained per-workload composite never later than the
two-band one, composites of random search's own points never later than random itself, and every figure is a count within the budget; bad arguments are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "composite_bound.py"
TABLE = REPO / "benchmarks" / "results" / "controller_space_gdn_decode_cuda_h200.json"


def test_composites_are_bounded_by_the_controller_and_each_other(tmp_path: Path) -> None:
    mod = load_script("kopt_composite_bound", SCRIPT)
    data = mod.main(["--table", str(TABLE), "--budget", "12", "--seeds", "4", "--out", str(tmp_path)])
    assert data["axis"] == "batch_size" and len(data["rows"]) == 4
    for r in data["rows"]:
        assert 1 <= r["random_needed"] <= 12
        per, two, ctl = r["per_workload_needed"], r["two_bands_needed"], r["controller_needed"]
        if ctl is not None:  # the controller's own reaching candidate (or dispatch) is one such composite
            assert per is not None and per <= ctl, r
        if two is not None:
            assert per is not None and per <= two, r
        # random's own path: its reaching point is one such composite, so composing never comes later than it
        rper, rtwo = r["random_per_workload_needed"], r["random_two_bands_needed"]
        assert rper is not None and rtwo is not None and rper <= rtwo <= r["random_needed"], r
    assert set(data["median_ratio"]) == {"controller", "per_workload", "two_bands", "random_per_workload",
                                         "random_two_bands"}
    written = json.loads((tmp_path / "composite_bound_gdn_decode_cuda_h200_b12.json").read_text())
    assert written["rows"] == data["rows"]
    md = (tmp_path / "composite_bound_gdn_decode_cuda_h200_b12.md").read_text()
    assert md.startswith("# Composite bound: gdn_decode_cuda_h200, budget 12, 4 seeds")


def test_the_composite_of_one_point_is_that_point_and_an_edge_helps_only_when_bands_disagree() -> None:
    mod = load_script("kopt_composite_bound", SCRIPT)
    a = {"w1": 1.0, "w2": 4.0}
    b = {"w1": 2.0, "w2": 2.0}
    assert mod.composites([a], ["w1", "w2"]) == {"per_workload": 2.5, "two_bands": 2.5}
    assert mod.composites([a, b], ["w1", "w2"]) == {"per_workload": 1.5, "two_bands": 1.5}
    # the band edge follows the axis order: with w2 first, the best two-band split is the same workloads
    assert mod.composites([a, b], ["w2", "w1"])["two_bands"] == 1.5


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    mod = load_script("kopt_composite_bound", SCRIPT)
    with pytest.raises(SystemExit):
        mod.main(["--table", str(tmp_path / "none.json")])
    with pytest.raises(SystemExit):
        mod.main(["--table", str(TABLE), "--budget", "0"])
    with pytest.raises(SystemExit):  # a results folder that is a file: refused before the replay
        mod.main(["--table", str(TABLE), "--budget", "12", "--seeds", "1", "--out", str(TABLE)])
