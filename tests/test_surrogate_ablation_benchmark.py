"""benchmarks/surrogate_ablation.py: the controller's surrogate rule replayed over measured tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "benchmarks" / "results" / "controller_space_gdn_decode_h200.json"


def _module(name: str):
    sys.path.insert(0, str(REPO / "benchmarks"))
    return load_script(name, REPO / "benchmarks" / f"{name}.py")


def test_base_is_controller_efficiencys_figure_and_the_variants_are_tabled(tmp_path: Path) -> None:
    """Over GDN decode's 18-point H200 table at budget 6, 3 seeds: the ``base`` variant's figure is the one
    controller_efficiency.py's table replay writes for the same seeds (the same controller, arm and metric); a
    surrogate variant gets its own column and counts against base."""
    mod = _module("surrogate_ablation")
    out = mod.main(["--tables", str(TABLE), "--budgets", "6", "--seeds", "3", "--jobs", "1", "--variant", "base=",
                    "--variant", "gp=surrogate=rbf,surrogate_turns=always", "--out", str(tmp_path)])
    (row,) = out["rows"]
    assert row["table"] == "gdn_decode_h200" and row["budget"] == 6 and set(row["figures"]) == {"base", "gp"}
    ce = _module("controller_efficiency").main(["--mode", "table", "--table", str(TABLE), "--budget", "6", "--seeds",
                                                "3", "--out", str(tmp_path / "ce")])
    assert row["figures"]["base"] == round(ce["summary"]["evidence_over_random_median_censored"], 3)
    s = out["summary"]["gp"]
    assert s["better_than_base"] + s["worse_than_base"] <= 1 and s["at_or_below_third"] in (0, 1)
    written = json.loads((tmp_path / "surrogate_ablation.json").read_text())
    assert written["variants"] == {"base": {}, "gp": {"surrogate": "rbf", "surrogate_turns": "always"}}
    md = (tmp_path / "surrogate_ablation.md").read_text()
    assert "| gdn_decode_h200 | 6 |" in md and "| gp |" in md and out["command"] in md


@pytest.mark.parametrize(("arg", "says"), [
    ("--variant=nope", "expected NAME=KEY=VALUE"),
    ("--variant=x=surrogate=matern", "'x=surrogate=matern': surrogate: Input should be 'rbf' or 'additive'"),
    ("--tables=/no/such.json", "--tables /no/such.json: no such file"),
])
def test_bad_input_is_one_line(arg: str, says: str, tmp_path: Path, capsys) -> None:
    mod = _module("surrogate_ablation")
    with pytest.raises(SystemExit) as exc:
        mod.main([arg, "--out", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if "error:" in x]
    assert says in line, err
