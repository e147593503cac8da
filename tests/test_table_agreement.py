"""``benchmarks/table_agreement.py``: rank agreement of two measured latency tables (issue 5: an H100 table as a
stand-in for the H200's), on the committed GDN decode tables, with the statistics checked by hand and on bad input."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
RES = REPO / "benchmarks" / "results"
HINTS = RES / "controller_space_gdn_decode_cuda_hints_sub_h100.json"
CUDA = RES / "controller_space_gdn_decode_cuda_h200.json"


def _module():
    return load_script("table_agreement", REPO / "benchmarks" / "table_agreement.py")


def test_kendall_tau_b_by_hand() -> None:
    mod = _module()
    assert mod.kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)  # 2 concordant pairs, 1 discordant
    assert mod.kendall_tau_b([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # tau-b with a tie in b: pairs (0,1) tied in b; concordant 5, discordant 0 -> 5 / sqrt(6 * 5)
    assert mod.kendall_tau_b([1, 2, 3, 4], [1, 1, 2, 3]) == pytest.approx(5 / (6 * 5) ** 0.5)


def test_an_h100_hints_quarter_against_the_h200_table_of_its_plain_points(tmp_path: Path) -> None:
    """The 48 points of the hints seed with both cache policies off are gdn_decode_cuda's 48 of call DT: matched on
    the five shared parameters, and the figures agree with a count made here from the tables themselves."""
    mod = _module()
    assert mod.main(["--tables", str(HINTS), str(CUDA), "--where", "LOAD_CS=0", "STORE_CS=0",
                     "--out", str(tmp_path / "new")]) == 0
    got = json.loads((tmp_path / "new" / "table_agreement_gdn_decode_cuda_hints_sub_h100__gdn_decode_cuda_h200.json")
                     .read_text())
    assert got["points"] == 48 and got["axes"] == ["R", "LPR", "WARPS", "OUT_FROM_OLD", "PER_ROW"]
    assert got["best_a"] == got["best_b"] == {"R": 8, "LPR": 8, "WARPS": 4, "OUT_FROM_OLD": 1, "PER_ROW": 0}
    assert got["best_a_rank_in_b"] == got["best_b_rank_in_a"] == 1
    scipy_stats = pytest.importorskip("scipy.stats")
    pairs = {}
    for path, where in ((HINTS, {"LOAD_CS": 0, "STORE_CS": 0}), (CUDA, {})):
        data = json.loads(path.read_text())
        for key, mean in mod.point_means(data).items():
            p = dict(key)
            if all(p[k] == v for k, v in where.items()):
                pairs.setdefault(tuple((k, p[k]) for k in got["axes"]), []).append(mean)
    a, b = zip(*pairs.values())
    assert got["spearman"] == pytest.approx(scipy_stats.spearmanr(a, b).statistic)
    assert got["kendall_tau_b"] == pytest.approx(scipy_stats.kendalltau(a, b).statistic)
    assert got["median_ratio_b_over_a"] == pytest.approx(statistics.median(y / x for x, y in zip(a, b)))
    assert "| Spearman rank correlation | " in (tmp_path / "new" / (
        "table_agreement_gdn_decode_cuda_hints_sub_h100__gdn_decode_cuda_h200.md")).read_text()


def test_a_table_agrees_with_itself(tmp_path: Path) -> None:
    mod = _module()
    assert mod.main(["--tables", str(CUDA), str(CUDA), "--top", "3", "--out", str(tmp_path)]) == 0
    got = json.loads(next(tmp_path.glob("table_agreement_*.json")).read_text())
    assert got["spearman"] == pytest.approx(1.0) and got["kendall_tau_b"] == pytest.approx(1.0)
    assert got["top_overlap"] == 3 and got["median_ratio_b_over_a"] == 1.0


@pytest.mark.parametrize(("tables", "extra", "why"), [
    ((HINTS, CUDA), [], "several points match"),
    ((HINTS, CUDA), ["--where", "NOPE=1"], "NOPE: not a parameter"),
    ((HINTS, RES / "controller_space_rmsnorm_h4096_h200.json"), [], "two operators"),
    ((HINTS, CUDA), ["--top", "0"], "--top 0"),
    ((HINTS, CUDA), ["--where", "LOAD_CS"], "--where"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], tables, extra,
                                          why) -> None:
    mod = _module()
    with pytest.raises(SystemExit) as exc:
        mod.main(["--tables", *map(str, tables), *extra, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and why in err and len(err.splitlines()) == 1, err
    assert not list(tmp_path.iterdir())
