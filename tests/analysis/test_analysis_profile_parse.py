"""Profiler parsers on hand-written fixtures in the real formats: ``ncu --csv --page raw`` (wide,
units row), ``ncu --csv`` details (long) and torch.profiler ``key_averages()`` rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.analysis.bottleneck import classify, load_bottleneck_table
from kernelopt.analysis.profile_parse import (bottleneck_metrics, dominant_kernel_metrics, kernel_table, number,
                                             parse_ncu_csv)

FIX = Path(__file__).parent / "fixtures"
TH = load_bottleneck_table()["thresholds"]


def test_ncu_raw_page():
    launches = parse_ncu_csv((FIX / "ncu_raw.csv").read_text())
    assert [d["id"] for d in launches] == [0, 1, 2]
    first = launches[0]
    assert first["kernel"] == "_gdn_decode_kernel" and first["grid"] == "(2048, 1, 1)"
    assert first["dram_throughput_pct"] == pytest.approx(82.31)
    assert first["sm_throughput_pct"] == pytest.approx(24.48)
    assert first["achieved_occupancy_pct"] == pytest.approx(83.02)
    assert first["theoretical_occupancy_pct"] == 100 and first["registers_per_thread"] == 64
    assert first["waves_per_sm"] == pytest.approx(1.73) and first["l2_hit_rate_pct"] == pytest.approx(12.05)
    assert first["duration_us"] == pytest.approx(26.46)
    assert launches[1]["kernel"].startswith("void at::native::vectorized_elementwise_kernel<4,")
    dom = dominant_kernel_metrics(launches)
    assert dom["kernel"] == "_gdn_decode_kernel" and dom["launches"] == 2 and dom["distinct_kernels"] == 2
    assert dom["dram_throughput_pct"] == pytest.approx((82.31 + 81.09) / 2)
    assert dom["time_share"] == pytest.approx((26.46 + 26.80) / (26.46 + 1.98 + 26.80))
    assert classify(dom, TH)[0] == "memory_bound"


def test_ncu_details_page_units_and_missing_values():
    (launch,) = parse_ncu_csv((FIX / "ncu_details.csv").read_text())
    assert launch["kernel"] == "_chunk_fwd_kernel" and launch["grid"] == "(1,312, 1, 1)"
    assert launch["duration_us"] == pytest.approx(1210.0)  # msecond -> us
    assert launch["registers_per_thread"] == 168 and launch["theoretical_occupancy_pct"] == 18.75
    assert "l2_hit_rate_pct" not in launch  # "n/a" is absent evidence
    cls, ev = classify(launch, TH)
    assert (cls, ev["limiter"]) == ("occupancy_limited", "register pressure")


def test_ncu_errors_are_clear():
    with pytest.raises(ValueError, match="header not found"):
        parse_ncu_csv("==ERROR== ERR_NVGPUCTRPERM - no permission\n")
    with pytest.raises(ValueError, match="Kernel Name"):
        parse_ncu_csv('"a","b"\n"1","2"\n')
    bad = (FIX / "ncu_details.csv").read_text().replace('"msecond"', '"fortnight"')
    with pytest.raises(ValueError, match="unknown time unit 'fortnight'"):
        parse_ncu_csv(bad)
    assert number("1,234.5") == 1234.5 and number("n/a") is None


def test_torch_profiler_kernel_table():
    events = json.loads((FIX / "torch_profiler_key_averages.json").read_text())
    table = kernel_table(events, calls=20, wall_us=1500.0)
    names = [k["name"] for k in table["kernels"]]
    assert names[:2] == ["_chunk_scan_kernel", "_chunk_state_kernel"] and len(names) == 3  # host ops, memcpy out
    assert table["kernels_per_call"] == 3.0
    total = 412.4 + 301.0 + 36.6
    assert table["device_us_per_call"] == pytest.approx(total / 20)
    assert table["host_gap_pct"] == pytest.approx(100 * (1 - total / 1500.0))  # 50 %
    assert table["kernels"][0]["mean_us"] == pytest.approx(412.4 / 20)
    assert table["kernels"][0]["share"] == pytest.approx(412.4 / total)
    cls, ev = classify({"host_gap_pct": table["host_gap_pct"], "kernels_per_call": table["kernels_per_call"]}, TH)
    assert (cls, ev["limiter"]) == ("launch_bound", "host gaps")
    assert kernel_table(events)["host_gap_pct"] is None
    with pytest.raises(ValueError, match="calls must be"):
        kernel_table(events, calls=0)
    with pytest.raises(ValueError, match="without 'key'"):
        kernel_table([{"count": 1}])


def test_span_idle_share_needs_the_official_latency_and_can_refute_host_gaps():
    events = json.loads((FIX / "torch_profiler_key_averages.json").read_text())
    profile = {"torch": kernel_table(events, calls=20, wall_us=1500.0)}  # 37.5 us of kernels a call, 50 % gaps
    assert "span_idle_pct" not in bottleneck_metrics(profile)
    assert "span_idle_pct" not in bottleneck_metrics(profile, None)
    tight = bottleneck_metrics(profile, 0.0400)  # 37.5 of 40 us covered by kernels
    assert tight["span_idle_pct"] == pytest.approx(100 * (1 - 37.5 / 40.0))
    # the wall time's gaps lie outside the official span: not launch-bound, and without Nsight Compute metrics
    # nothing else to classify by (the campaign then keeps the band's roofline class)
    with pytest.raises(ValueError, match="metrics need"):
        classify(tight, TH)
    assert classify({**tight, "dram_throughput_pct": 20.0, "sm_throughput_pct": 15.0, "waves_per_sm": 4.0,
                     "achieved_occupancy_pct": 60.0, "theoretical_occupancy_pct": 75.0}, TH)[0] == "latency_bound"
    loose = bottleneck_metrics(profile, 0.1000)
    assert loose["span_idle_pct"] == pytest.approx(62.5)
    assert classify(loose, TH)[1]["rule"].startswith("host_gap_pct 50.0 >= 30, span_idle_pct 62.5 >= 30")
    assert bottleneck_metrics(profile, 0.0300)["span_idle_pct"] == 0.0  # a faster official figure: no idle share


def test_span_idle_share_prefers_the_cold_pass():
    """With the profile's cold pass (L2 flushed before each call, as the official timing), the idle share is
    measured against its device time: the warm calls' would count the cold-cache slowdown as idle."""
    table = {"kernels": [{"name": "k", "launches": 10, "total_us": 375.0}], "kernels_per_call": 2.0,
             "device_us_per_call": 37.5, "host_gap_pct": 50.0}
    assert bottleneck_metrics({"torch": table}, 0.1)["span_idle_pct"] == pytest.approx(62.5)
    cold = bottleneck_metrics({"torch": {**table, "cold_device_us_per_call": 80.0}}, 0.1)
    assert cold["span_idle_pct"] == pytest.approx(20.0)
    with pytest.raises(ValueError, match="metrics need"):  # not launch-bound: 80 of the 100 us are kernels
        classify(cold, TH)


def test_a_cold_pass_longer_than_the_official_span_is_evidence_not_device_time():
    """The first H200 cold pass (call BK, the one-launch DSA indexer at 4 rows x 34 pages): 32.4 us cold, 22.4 us
    warm, 23.7 us official latency. The span contains the call's kernels, so the cold pass overstates them there:
    the idle share uses the warm device time and the ratio is kept."""
    table = {"kernels": [{"name": "_indexer_one_kernel", "launches": 5, "total_us": 112.06}], "kernels_per_call": 1.0,
             "device_us_per_call": 22.41, "host_gap_pct": 97.4, "cold_device_us_per_call": 32.36}
    m = bottleneck_metrics({"torch": table}, 0.023664)
    assert m["cold_over_span"] == pytest.approx(32.36 / 23.664)
    assert m["span_idle_pct"] == pytest.approx(100.0 * (1.0 - 22.41 / 23.664))
    two = {**table, "kernels_per_call": 2.0, "device_us_per_call": 20.0, "cold_device_us_per_call": 30.0}
    m = bottleneck_metrics({"torch": two}, 0.0442)  # a cold pass inside the span is its device time
    assert m["cold_over_span"] == pytest.approx(30.0 / 44.2)
    assert m["span_idle_pct"] == pytest.approx(100 * (1 - 30 / 44.2))


def test_the_back_to_back_cold_pass_comes_first_where_it_fits():
    """A profile with both cold passes: the back-to-back one (no idle GPU between calls) is the span's device time
    where it fits inside the span, then the synchronized one, then the warm calls; both ratios to the official
    latency are reported. Call BP (H200, one-launch indexer at 4 x 34 pages): 24.0 us back to back, 29.8 us
    synchronized, 23.5 us official - the back-to-back pass is the one near the official loop."""
    table = {"kernels": [{"name": "_indexer_one_kernel", "launches": 5, "total_us": 112.58}], "kernels_per_call": 1.0,
             "device_us_per_call": 22.52, "host_gap_pct": 97.6, "cold_device_us_per_call": 34.93,
             "cold_b2b_device_us_per_call": 23.0}
    m = bottleneck_metrics({"torch": table}, 0.02349)
    assert m["cold_over_span"] == pytest.approx(34.93 / 23.49)
    assert m["cold_b2b_over_span"] == pytest.approx(23.0 / 23.49)
    assert m["span_idle_pct"] == pytest.approx(100 * (1 - 23.0 / 23.49))  # back to back, inside the span
    fits = {**table, "cold_device_us_per_call": 23.2}
    assert bottleneck_metrics({"torch": fits}, 0.02349)["span_idle_pct"] == pytest.approx(100 * (1 - 23.0 / 23.49))
    b2b_over = {**fits, "cold_b2b_device_us_per_call": 24.0}  # longer than the span: the synchronized pass fits
    assert bottleneck_metrics({"torch": b2b_over}, 0.02349)["span_idle_pct"] == pytest.approx(
        100 * (1 - 23.2 / 23.49))
    neither = {**table, "cold_b2b_device_us_per_call": 24.0}  # neither fits: the warm calls
    assert bottleneck_metrics({"torch": neither}, 0.02349)["span_idle_pct"] == pytest.approx(
        100 * (1 - 22.52 / 23.49))
