"""Bottleneck classes from recorded metric tables (shaped after the paper's Table 10 profiles,
REFERENCE §6.3) and from timings alone; thresholds come from ``skills/bottlenecks.md``."""

from __future__ import annotations

import pytest

from kernelopt.analysis.bottleneck import (
    CLASSES,
    SKILL_FILE,
    classify,
    classify_from_roofline,
    load_bottleneck_table,
    read_front_matter,
)

TABLE = load_bottleneck_table()
TH = TABLE["thresholds"]

# (label, metrics, expected class, expected limiter)
RECORDED = [
    # MoE T=14107 gemm1: tensor pipes busy, 1 block/SM, 384 threads, 168 regs, ~18.7 % occupancy
    ("moe_gemm1_T14107", {"dram_throughput_pct": 41.2, "sm_throughput_pct": 78.5, "achieved_occupancy_pct": 18.1,
                          "theoretical_occupancy_pct": 18.75, "registers_per_thread": 168, "waves_per_sm": 2.4},
     "compute_bound", "SM issue/pipes"),
    # GDN decode B=64: single kernel streaming the 1 MiB/row state, 83 % occupancy, 1.73 waves
    ("gdn_decode_B64", {"dram_throughput_pct": 82.0, "sm_throughput_pct": 24.5, "achieved_occupancy_pct": 83.0,
                        "theoretical_occupancy_pct": 100.0, "waves_per_sm": 1.73, "registers_per_thread": 64},
     "memory_bound", "DRAM bandwidth"),
    # indexer B=30,P=91 selector: one block (0.01 waves)
    ("indexer_selector", {"dram_throughput_pct": 1.9, "sm_throughput_pct": 3.4, "achieved_occupancy_pct": 1.5,
                          "theoretical_occupancy_pct": 50.0, "waves_per_sm": 0.01}, "occupancy_limited", "grid too small"),
    # DSA attention T=8 split kernel: 12 % occupancy, 0.86 waves
    ("attention_split_T8", {"dram_throughput_pct": 44.0, "sm_throughput_pct": 31.0, "achieved_occupancy_pct": 12.0,
                            "theoretical_occupancy_pct": 25.0, "waves_per_sm": 0.86}, "occupancy_limited",
     "grid too small"),
    # GDN prefill 8192 chunk kernel: 168 regs, ~100 KB smem, 18.75 % theoretical occupancy, spills
    ("prefill_chunk_8192", {"dram_throughput_pct": 29.0, "sm_throughput_pct": 38.0, "achieved_occupancy_pct": 17.6,
                            "theoretical_occupancy_pct": 18.75, "registers_per_thread": 168, "waves_per_sm": 3.1},
     "occupancy_limited", "register pressure"),
    # achieved << theoretical: tail/scheduling
    ("scheduling", {"dram_throughput_pct": 30.0, "sm_throughput_pct": 28.0, "achieved_occupancy_pct": 21.0,
                    "theoretical_occupancy_pct": 75.0, "waves_per_sm": 5.0}, "occupancy_limited", "scheduling"),
    # nothing saturated, occupancy fine
    ("latency", {"dram_throughput_pct": 22.0, "sm_throughput_pct": 25.0, "achieved_occupancy_pct": 61.0,
                 "theoretical_occupancy_pct": 75.0, "waves_per_sm": 4.0}, "latency_bound", "latency (stalls)"),
    # multi-kernel call with CPU gaps (torch.profiler): launch-bound whatever the kernels do
    ("host_gaps", {"dram_throughput_pct": 70.0, "sm_throughput_pct": 10.0, "host_gap_pct": 55.0,
                   "kernels_per_call": 6}, "launch_bound", "host gaps"),
    # one kernel per call (GDN decode retained at batch 1, H200 profile of 2026-11-30): the profiler's host
    # gaps lie outside the official timed span; 0.12 waves: the grid does not fill the GPU
    ("single_kernel_gaps", {"dram_throughput_pct": 3.89, "sm_throughput_pct": 6.73, "achieved_occupancy_pct": 12.23,
                            "theoretical_occupancy_pct": 100.0, "waves_per_sm": 0.12, "registers_per_thread": 27.0,
                            "host_gap_pct": 99.79, "kernels_per_call": 1.0}, "occupancy_limited", "grid too small"),
    # many short kernels and low throughput
    ("many_kernels", {"dram_throughput_pct": 8.0, "sm_throughput_pct": 6.0, "kernels_per_call": 9},
     "launch_bound", "launches"),
    # many long kernels: the MoE at 14,107 tokens (campaign of call AF, 2026-12-01, H200): 57 launches per call
    # (torch tile table) but 201 us mean and 7 % host gaps; GEMM2 keeps the SMs busy -> compute, not launches
    ("moe_14107_long_kernels", {"achieved_occupancy_pct": 12.19, "dram_throughput_pct": 19.74, "host_gap_pct": 7.12,
                                "kernels_per_call": 57.0, "l2_hit_rate_pct": 50.92, "mean_kernel_us": 201.26,
                                "registers_per_thread": 255.0, "sm_throughput_pct": 66.33,
                                "theoretical_occupancy_pct": 12.5, "waves_per_sm": 1503.09},
     "compute_bound", "SM issue/pipes"),
    # the FP8-intermediate MoE dispatch at 14,107 tokens (call AJ, 2026-12-01, H200): its dominant kernel, GEMM1,
    # holds two fp32 accumulators plus each K step's scaled partial products -> 254 registers, one 8-warp program
    # per SM; neither unit is busy, and the register file, not latency, is what the directions must relieve
    ("moe_q8_gemm1_14107", {"achieved_occupancy_pct": 12.47, "dram_throughput_pct": 23.43, "host_gap_pct": 22.73,
                            "kernels_per_call": 57.0, "l2_hit_rate_pct": 60.59, "mean_kernel_us": 67.76,
                            "registers_per_thread": 254.0, "sm_throughput_pct": 31.23,
                            "theoretical_occupancy_pct": 12.5, "waves_per_sm": 217.7},
     "occupancy_limited", "register pressure"),
    ("many_short_kernels", {"dram_throughput_pct": 12.0, "sm_throughput_pct": 9.0, "kernels_per_call": 57.0,
                            "mean_kernel_us": 3.5}, "launch_bound", "launches"),
    # host gaps of wall time are not gaps in the official span: GDN prefill wy3 at 8,192 tokens / 20 sequences
    # (H200 profile of call AX, 2026-12-01, profiles_v/profile_wy3_prefill.json; official latency 0.5558 ms in
    # the profiled run): 3 kernels, 58 % host gaps of wall time, but 550 us of kernels in the span (1 % idle);
    # its state walk holds 162 registers at 12.5 % occupancy
    ("wy3_prefill_8192_span", {"dram_throughput_pct": 27.84, "sm_throughput_pct": 11.56,
                               "achieved_occupancy_pct": 12.47, "theoretical_occupancy_pct": 12.5,
                               "waves_per_sm": 4.85, "registers_per_thread": 162.0, "kernels_per_call": 3.0,
                               "host_gap_pct": 57.63, "mean_kernel_us": 183.36, "span_idle_pct": 1.02},
     "occupancy_limited", "register pressure"),
    # the two-launch DSA indexer at 4 rows x 34 pages (call AB, indexer_probe/profile_radix.json, 41.1 us
    # official): 21.1 us of kernels, half the span idle and 96 % host gaps -> launch-bound
    ("indexer_radix_4x34_span", {"dram_throughput_pct": 0.11, "sm_throughput_pct": 1.08,
                                 "achieved_occupancy_pct": 12.48, "theoretical_occupancy_pct": 25.0,
                                 "waves_per_sm": 0.02, "registers_per_thread": 128.0, "kernels_per_call": 2.0,
                                 "host_gap_pct": 95.92, "mean_kernel_us": 10.54, "span_idle_pct": 48.67},
     "launch_bound", "host gaps"),
    # the same at 30 rows x 91 pages (66.1 us official): 60 us of kernels, 9 % of the span idle whatever the
    # 87 % host gaps: the scoring kernel's 181 registers are what to relieve
    ("indexer_radix_30x91_span", {"dram_throughput_pct": 6.74, "sm_throughput_pct": 17.6,
                                  "achieved_occupancy_pct": 11.92, "theoretical_occupancy_pct": 12.5,
                                  "waves_per_sm": 5.23, "registers_per_thread": 181.0, "kernels_per_call": 2.0,
                                  "host_gap_pct": 87.44, "mean_kernel_us": 29.99, "span_idle_pct": 9.29},
     "occupancy_limited", "register pressure"),
    # memory % >> compute % but below the high mark, occupancy fine
    ("memory_gap", {"dram_throughput_pct": 55.0, "sm_throughput_pct": 20.0, "achieved_occupancy_pct": 70.0,
                    "theoretical_occupancy_pct": 100.0, "waves_per_sm": 8.0}, "memory_bound", "memory system"),
]


@pytest.mark.parametrize(("label", "metrics", "cls", "limiter"), RECORDED, ids=[r[0] for r in RECORDED])
def test_recorded_tables(label, metrics, cls, limiter):
    got, ev = classify(metrics, TH)
    assert (got, ev["limiter"]) == (cls, limiter), ev
    assert ev["metrics"] == metrics and ev["rule"]


def test_classify_needs_some_metric():
    with pytest.raises(ValueError, match="metrics need"):
        classify({"registers_per_thread": 255}, TH)


def test_timing_only_classes():
    cls, ev = classify_from_roofline(0.07, 0.1, TH, limiter="memory")
    assert cls == "memory_bound" and ev["fraction"] == pytest.approx(0.7)
    assert classify_from_roofline(0.09, 0.1, TH, limiter="compute")[0] == "compute_bound"
    assert classify_from_roofline(0.0003, 0.003, TH, limiter="memory")[0] == "launch_bound"  # 3 us < 5 us
    assert classify_from_roofline(0.0003, 0.008, TH, limiter="memory", launch_count=2)[0] == "launch_bound"
    assert classify_from_roofline(0.01, 0.05, TH, limiter="memory")[0] == "latency_bound"
    assert classify_from_roofline(None, 0.05, TH)[0] == "unknown"


def test_skill_front_matter_is_the_source_of_thresholds(tmp_path):
    meta = read_front_matter(SKILL_FILE)
    assert set(meta) <= {"name", "description", "kind", "applies_to", "modes", "preconditions", "data"}
    assert meta["kind"] == "table" and meta["modes"] == ["agent_assisted"] and meta["applies_to"] == ["all"]
    assert set(TABLE["directions"]) == set(CLASSES)
    # a stricter table changes the verdict: the decode profile is no longer "high" DRAM use
    strict = dict(TH, high_throughput_pct=90.0, dominance_gap_pct=70.0)
    assert classify(RECORDED[1][1], strict)[0] == "latency_bound"
    bad = tmp_path / "b.md"
    bad.write_text("---\nname: b\ndata:\n  thresholds: {waves_low: 1}\n  directions: {}\n---\n")
    with pytest.raises(ValueError, match=r"b.md: field 'data.thresholds' lacks"):
        load_bottleneck_table(bad)
    bad.write_text("no front matter\n")
    with pytest.raises(ValueError, match="no YAML front matter"):
        load_bottleneck_table(bad)


# GDN decode retained kernel, batch 48-64 band, profiled on the H200 (2026-11-30 call O,
# benchmarks/results/campaign_gdn_decode_bands_h200.md): SM % above DRAM % although the band runs at 0.78
# of its memory roofline (contest_gdn_decode_bands_h200.md)
H200_GDN_DECODE_B64 = {"dram_throughput_pct": 52.58, "sm_throughput_pct": 65.72, "achieved_occupancy_pct": 88.58,
                       "theoretical_occupancy_pct": 100.0, "registers_per_thread": 27.0, "kernels_per_call": 1.0,
                       "host_gap_pct": 96.3}


@pytest.mark.parametrize("roofline, cls", [
    (None, "compute_bound"),                                      # metrics alone
    ({"fraction": 0.78, "limiter": "memory"}, "memory_bound"),    # near the memory roofline: memory-bound
    ({"fraction": 0.40, "limiter": "memory"}, "compute_bound"),   # far from it: the metrics stand
    ({"fraction": 0.78, "limiter": "compute"}, "compute_bound"),  # a compute roofline agrees with SM %
])
def test_memory_roofline_overrules_sm_busy_from_load_store_issue(roofline, cls):
    got, ev = classify(H200_GDN_DECODE_B64, TH, roofline)
    assert got == cls
    if cls == "memory_bound":
        assert "memory roofline" in ev["rule"] and ev["roofline_fraction"] == 0.78
