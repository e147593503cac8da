"""The official span's anatomy from CUPTI-style records: per activity position its start offset, duration and the
idle gap before it (medians over iterations), the busy union and the idle share."""

from __future__ import annotations

import pytest

from kernelopt.analysis.span_anatomy import busy_ns, span_anatomy
from kernelopt.harness.cupti_timer import ApiCall, GpuActivity, window_activities


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
