"""The official span's anatomy from CUPTI-style records: per activity position its start offset, duration and the
idle gap before it (medians over iterations), the busy union and the idle share."""

from __future__ import annotations

import pytest

from kernelopt.analysis.profile_parse import bottleneck_metrics
from kernelopt.analysis.span_anatomy import busy_ns, span_anatomy, span_evidence
from kernelopt.harness.cupti_timer import (
    ApiCall,
    GpuActivity,
    launch_calls,
    official_span,
    records_anatomy,
    window_activities,
)


def _k(name: str, start: int, end: int, corr: int) -> GpuActivity:
    return GpuActivity(("kernel", name, 0, 0, 0), start, end, corr)


def test_busy_time_counts_overlaps_once():
    assert busy_ns([(0, 10), (5, 12), (20, 25)]) == 17
    assert busy_ns([(3, 4)]) == 1 and busy_ns([]) == 0


def test_gaps_and_offsets_per_kernel_from_the_timer_records():
    """Two timed calls of a three-kernel solution: route (5 us), then a 20 us host gap, gemm (100 us), combine
    starting inside gemm's tail (overlap: no gap). The records outside the windows (the flush) are not the call's."""
    windows = [(1_000, 2_000), (10_000_000, 10_001_000)]
    api = [ApiCall(500, 9), ApiCall(1_100, 1), ApiCall(1_200, 2), ApiCall(1_300, 3),
           ApiCall(10_000_100, 4), ApiCall(10_000_200, 5), ApiCall(10_000_300, 6)]
    acts = [GpuActivity(("memset", "MEMSET", 0, 8, 0), 600, 900, 9)]
    for base, corr in ((100_000, 1), (20_000_000, 4)):
        acts += [_k("route", base, base + 5_000, corr), _k("gemm", base + 25_000, base + 125_000, corr + 1),
                 _k("combine", base + 124_000, base + 128_000, corr + 2)]
    per_call = window_activities(windows, api, acts)
    assert [len(a) for a in per_call] == [3, 3]
    out = span_anatomy([[(a.signature, a.start, a.end) for a in call] for call in per_call])
    assert out["iterations"] == 2
    assert out["span_us"] == pytest.approx(128.0) and out["busy_us"] == pytest.approx(108.0)
    assert out["idle_pct"] == pytest.approx(100 * 20 / 128)
    names = [k["name"] for k in out["activities"]]
    assert names == ["route", "gemm", "combine"]
    gaps = [k["gap_before_us"] for k in out["activities"]]
    assert gaps == [pytest.approx(0.0), pytest.approx(20.0), pytest.approx(0.0)]
    assert [k["start_us"] for k in out["activities"]] == [0.0, 25.0, 124.0]
    assert out["activities"][1]["duration_us"] == pytest.approx(100.0)


def test_medians_over_iterations_and_bad_input():
    its = [[("a", 0, 10_000), ("b", 10_000 + g, 20_000 + g)] for g in (1_000, 3_000, 50_000)]
    out = span_anatomy(its)
    assert out["activities"][1]["gap_before_us"] == pytest.approx(3.0)  # the median, not the 50 us outlier
    with pytest.raises(ValueError, match="at least one activity"):
        span_anatomy([[]])
    with pytest.raises(ValueError, match="different numbers"):
        span_anatomy([[("a", 0, 1)], [("a", 0, 1), ("b", 2, 3)]])


def test_the_compact_evidence_names_the_largest_gaps():
    its = [[("route", 0, 5_000), ("tiles", 20_000, 28_000), ("gemm1", 60_000, 237_000), ("gemm2", 237_000, 368_000)]]
    ev = span_evidence(span_anatomy(its))
    assert ev["activities"] == 4 and ev["span_us"] == 368.0 and ev["busy_us"] == 321.0
    assert ev["idle_pct"] == pytest.approx(100 * 47 / 368, abs=0.01)
    assert ev["largest_gaps"] == [{"gap_us": 32.0, "before": "gemm1"}, {"gap_us": 15.0, "before": "tiles"}]


def test_official_span_from_timer_records_and_none_without_them():
    windows = [(1_000, 2_000)]
    api = [ApiCall(1_100, 1), ApiCall(1_200, 2)]
    acts = [_k("a", 100_000, 110_000, 1), _k("b", 130_000, 140_000, 2)]
    ev = official_span({"per_call": window_activities(windows, api, acts)})
    assert ev["idle_pct"] == pytest.approx(50.0) and ev["largest_gaps"] == [{"gap_us": 20.0, "before": "b"}]
    assert official_span({}) is None


def test_the_measured_idle_share_replaces_the_estimate():
    """bottleneck_metrics of a profile carrying the official span's anatomy: its idle share is the one classified;
    the profile's estimate (device time against the latency) is kept beside it."""
    table = {"kernels": [{"name": "g", "launches": 25, "total_us": 1622.5}], "kernels_per_call": 5.0,
             "device_us_per_call": 324.5, "host_gap_pct": 64.8}
    est = bottleneck_metrics({"torch": table}, 0.4171)
    assert est["span_idle_pct"] == pytest.approx(100 * (1 - 324.5 / 417.1)) and "span_idle_source" not in est
    m = bottleneck_metrics({"torch": table, "official_span": {"idle_pct": 12.5, "largest_gaps": []}}, 0.4171)
    assert m["span_idle_pct"] == 12.5 and m["span_idle_source"] == "official"
    assert m["span_idle_pct_profile"] == pytest.approx(est["span_idle_pct"])
    assert bottleneck_metrics({"official_span": {"idle_pct": 12.5}}, 0.4171) == {}  # no profile table: nothing


def test_launch_calls_place_the_host_beside_the_gpu():
    """Each activity with its launch call's host start and return (the timer's API records): a kernel that starts
    right after its launch returned was waiting for the host. The runtime and driver records of one launch share its
    correlation id: the outermost pair is the launch call; records without a return time are left out."""
    windows = [(1_000, 200_000)]
    api = [ApiCall(1_100, 1, 3_000), ApiCall(1_500, 1, 2_800), ApiCall(60_000, 2, 70_000), ApiCall(1_200, 7)]
    acts = [_k("gemm1", 10_000, 50_000, 1), _k("combine", 71_000, 73_000, 2)]
    per_call = window_activities(windows, api, acts)
    launches = launch_calls(api)
    assert launches == {1: (1_100, 3_000), 2: (60_000, 70_000)}
    out = records_anatomy({"per_call": per_call, "launches": launches})
    first, last = out["activities"]
    assert first["launch_us"] == pytest.approx(-8.9) and first["launch_return_us"] == pytest.approx(-7.0)
    assert last["gap_before_us"] == pytest.approx(21.0)
    assert last["launch_us"] == pytest.approx(50.0) and last["launch_return_us"] == pytest.approx(60.0)
    # without the launch records the anatomy is as before (no launch fields)
    plain = records_anatomy({"per_call": per_call})
    assert "launch_us" not in plain["activities"][1] and plain["activities"][1]["gap_before_us"] == pytest.approx(21.0)
