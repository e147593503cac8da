"""Shape discovery on the contest workload files (REFERENCE §1): expected bands, outliers, gates."""

from __future__ import annotations

import json

import pytest

from kernelopt.analysis.bands import discover_bands, natural_breaks, spearman
from kernelopt.analysis.campaign_analysis import analyse_operator
from kernelopt.operators import load_operator

MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
IDX = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"


def _bands(analysis):
    return [(b.low, b.high, len(b.workloads)) for b in analysis.bands]


def test_indexer_bands_by_max_num_pages_as_in_the_paper():
    """REFERENCE §1.2: P bands 1-32 x69, 33-36 x18, 37-45 x21 (no P=37 row: 38-45), 82-91 x20; the
    operator's BAND_AXIS/REGIME_BREAKS + natural breaks reproduce them; batch_size is coupled."""
    op = load_operator(IDX)
    a = analyse_operator(op.definition, op.workloads, op.path, None, None)["bands"]
    assert a["band_axis"] == "max_num_pages"
    assert set(a["varying_axes"]) == {"batch_size", "max_num_pages"}  # num_pages is const in the file
    assert [(b["low"], b["high"], len(b["workloads"])) for b in a["bands"]] == \
        [(1, 32, 69), (33, 36, 18), (38, 45, 21), (82, 91, 20)]
    assert a["bands"][3]["axis_ranges"]["batch_size"] == [12, 30]
    assert a["cost_source"] == "roofline_bytes" and "proxy" in a["notes"][0]
    # the 82-91 band is the latency-heavy one (roofline-bytes proxy, paper Table 9 agrees)
    assert max(a["bands"], key=lambda b: b["share"])["low"] == 82


def test_indexer_without_hints_still_finds_the_long_row_gap():
    op = load_operator(IDX)
    a = discover_bands(op.definition, op.workloads, band_axis="max_num_pages")
    assert (82, 91, 20) in _bands(a)  # the 45 -> 82 gap is the strongest natural break


def test_gdn_decode_bands_by_batch_size():
    op = load_operator("gdn_decode_qk4_v8_d128_k_last")
    lat = {w.uuid: 0.003 + 0.00025 * w.axes["batch_size"] for w in op.workloads}
    a = discover_bands(op.definition, op.workloads, lat)
    assert a.band_axis == "batch_size" and a.cost_source == "latency"
    bands = _bands(a)
    assert sum(n for *_, n in bands) == 54 and 2 <= len(bands) <= 4
    assert bands[0][0] == 1 and bands[-1][1] == 64
    assert all(bands[i][1] < bands[i + 1][0] for i in range(len(bands) - 1))  # contiguous, disjoint
    assert sum(b.share for b in a.bands) == pytest.approx(1.0)
    assert len(a.representatives) == 3 and set(a.representative_roles.values()) == \
        {"dominant", "latency_heavy", "boundary"}
    heavy = next(u for u, r in a.representative_roles.items() if r == "latency_heavy")
    assert next(w for w in op.workloads if w.uuid == heavy).axes["batch_size"] == 64


def test_gdn_prefill_bands_by_total_seq_len_with_coupled_cu_seqlens():
    op = load_operator("gdn_prefill_qk4_v8_d128_k_last")
    a = analyse_operator(op.definition, op.workloads, op.path, None, None)["bands"]
    assert a["band_axis"] == "total_seq_len"
    assert a["coupled_axes"] == {"len_cu_seqlens": "num_seqs"}
    top = a["bands"][-1]
    assert top["high"] == 8192 and top["low"] > 2048  # the 8192-token rows sit in the top band
    assert sum(len(b["workloads"]) for b in a["bands"]) == 100


def test_moe_long_rows_form_one_outlier_band_when_latency_follows_seq_len():
    """Latencies proportional to seq_len: 14107 and 11948 each carry >= 1/3 (51 %, 43 %)."""
    op = load_operator(MOE)
    lat = {w.uuid: float(w.axes["seq_len"]) for w in op.workloads}
    a = discover_bands(op.definition, op.workloads, lat)
    outliers = [b for b in a.bands if b.outlier]
    assert len(outliers) == 1
    (out,) = outliers
    assert (out.low, out.high, len(out.workloads)) == (11948, 14107, 2)
    assert out.share == pytest.approx((11948 + 14107) / sum(lat.values()))
    assert "outlier" in out.name
    assert any(b.high == 901 for b in a.bands if not b.outlier)  # 901 stays in a regular band
    heavy = next(u for u, r in a.representative_roles.items() if r == "latency_heavy")
    assert lat[heavy] == 14107


def test_single_heavy_workload_leaves_a_big_band():
    op = load_operator("gemm_n4096_k4096")
    lat = {w.uuid: 1.0 for w in op.workloads}
    heavy = next(w.uuid for w in op.workloads if w.axes["M"] == 128)
    lat[heavy] = 40.0  # 40 of 82 ms: >= 1/3
    a = discover_bands(op.definition, op.workloads, lat)
    band = a.band_of(heavy)
    assert band.outlier and band.workloads == [heavy] and band.share == pytest.approx(40 / 82)


def test_no_outlier_rule_without_latencies_and_json_ready():
    op = load_operator(MOE)
    a = discover_bands(op.definition, op.workloads)
    assert a.cost_source == "axis_product" and not any(b.outlier for b in a.bands)
    json.dumps(a.to_dict())


def test_natural_breaks_and_spearman_basics():
    assert natural_breaks([1, 2, 3, 50, 51, 52], 4) == [[1, 2, 3], [50, 51, 52]]  # small gains stop
    assert natural_breaks([1, 2, 3, 4], 2, fixed=[2]) == [[1, 2], [3, 4]]
    assert natural_breaks([1, 2, 3, 4], 1, fixed=[2]) == [[1, 2], [3, 4]]  # fixed breaks always apply
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) == 0.0


def test_bad_input_is_named():
    op = load_operator("rmsnorm_h4096")
    with pytest.raises(ValueError, match="latencies missing"):
        discover_bands(op.definition, op.workloads, {op.workloads[0].uuid: 1.0})
    with pytest.raises(ValueError, match="band_axis 'nope'"):
        discover_bands(op.definition, op.workloads, band_axis="nope")
    with pytest.raises(ValueError, match="no workloads"):
        discover_bands(op.definition, [])
