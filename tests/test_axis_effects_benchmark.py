"""``benchmarks/axis_effects.py``: the variant / base ratios of some seed knobs on a measured table (issue 5's GDN
decode spaces), on the committed H200 table of gdn_decode_cuda's 192 points, cut short, and on bad input."""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
from pathlib import Path

import pytest

from kernelopt.generators.seeds import load_seed

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "benchmarks" / "results" / "controller_space_gdn_decode_cuda_full_h200.json"
SEED = REPO / "operators/gdn_decode_qk4_v8_d128_k_last/solutions/seeds/gdn_decode_cuda"


def _module():
    sys.path.insert(0, str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location("axis_effects", REPO / "benchmarks" / "axis_effects.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _by_hand(data: dict, variant: dict) -> list[float]:
    """The ratios computed here from the seed itself: each point at ``variant`` against the same point at 0 / 0."""
    seed = load_seed(SEED)
    mean = {}
    for p in seed.valid_points():
        row = data["latency_ms"].get(seed.instantiate(p).hash())
        if row and all(v is not None for v in row.values()):
            mean[tuple(sorted(p.items()))] = statistics.fmean(row.values())
    out = []
    for key, m in mean.items():
        p = dict(key)
        if all(p[k] == v for k, v in variant.items()):
            base = mean.get(tuple(sorted({**p, "OUT_FROM_OLD": 0, "PER_ROW": 0}.items())))
            if base is not None:
                out.append(m / base)
    return out


def test_ratios_on_the_measured_192_point_table_match_a_count_by_hand(tmp_path: Path) -> None:
    mod = _module()
    assert mod.main(["--table", str(TABLE), "--axes", "OUT_FROM_OLD", "PER_ROW", "--out", str(tmp_path)]) == 0
    got = json.loads((tmp_path / "axis_effects_gdn_decode_cuda_full_h200.json").read_text())
    assert got["measured"] == got["table_points"] == 192 and got["base"] == {"OUT_FROM_OLD": 0, "PER_ROW": 0}
    data = json.loads(TABLE.read_text())
    assert [v["values"] for v in got["variants"]] == [{"OUT_FROM_OLD": 0, "PER_ROW": 1},
                                                     {"OUT_FROM_OLD": 1, "PER_ROW": 0},
                                                     {"OUT_FROM_OLD": 1, "PER_ROW": 1}]
    for v in got["variants"]:
        ratios = _by_hand(data, v["values"])
        assert v["pairs"] == len(ratios) == 48
        assert v["median"] == pytest.approx(statistics.median(ratios)) and v["min"] == pytest.approx(min(ratios))
        assert v["faster"] == sum(r < 1 for r in ratios)
    md = (tmp_path / "axis_effects_gdn_decode_cuda_full_h200.md").read_text()
    assert "| OUT_FROM_OLD=1, PER_ROW=0 | 48 |" in md and "192 of its 192 points" in md


def test_a_table_cut_short_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    data = json.loads(TABLE.read_text())
    keep = sorted(data["latency_ms"])[:100]
    data["latency_ms"] = {h: data["latency_ms"][h] for h in keep}
    first = keep[0]
    data["latency_ms"][first] = {**data["latency_ms"][first], data["workloads"][0]: None}  # a failed workload
    cut = tmp_path / "controller_space_cut.json"
    cut.write_text(json.dumps(data))
    mod = _module()
    assert mod.main(["--table", str(cut), "--axes", "PER_ROW", "--out", str(tmp_path)]) == 0
    got = json.loads((tmp_path / "axis_effects_cut.json").read_text())
    assert got["measured"] == 99 and got["table_points"] == 192
    (only,) = got["variants"]
    assert only["values"] == {"PER_ROW": 1} and 0 < only["pairs"] < 96


@pytest.mark.parametrize(("axes", "why"), [(["BV"], "not parameters of the table's seed"),
                                           (["PER_ROW", "OUT_FROM_OLD"], None)])
def test_unknown_or_fixed_axes_are_one_line_and_exit_2(tmp_path: Path, capsys, axes, why) -> None:
    mod = _module()
    table = REPO / "benchmarks" / "results" / "controller_space_gdn_decode_cuda_h200.json"  # OUT_FROM_OLD, PER_ROW fixed
    with pytest.raises(SystemExit) as exc:
        mod.main(["--table", str(table), "--axes", *axes, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and len(err.splitlines()) == 1
    assert (why or "fixed in this table") in err and err.startswith("axis_effects.py: error: --axes ")
    assert not list(tmp_path.iterdir())
