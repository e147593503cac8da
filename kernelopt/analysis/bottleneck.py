"""Bottleneck classification of a band: from a metric table (Nsight Compute + torch.profiler) or,
when only timings exist, from the roofline fraction. Thresholds and the bottleneck -> directions map
come from ``skills/bottlenecks.md`` (YAML front matter ``data``), not from code.

Classes: ``memory_bound``, ``compute_bound``, ``latency_bound``, ``launch_bound``,
``occupancy_limited``. Order of the checks (first that applies wins): launch (host gaps) ->
memory/compute (a unit near its peak) -> occupancy (underfilled grid, achieved << theoretical,
register pressure) -> latency (nothing saturated).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

UNKNOWN = "unknown"
CLASSES = ("memory_bound", "compute_bound", "latency_bound", "launch_bound", "occupancy_limited")
SKILL_FILE = Path(__file__).resolve().parents[2] / "skills" / "bottlenecks.md"
REQUIRED_THRESHOLDS = (
    "high_throughput_pct", "dominance_gap_pct", "low_throughput_pct", "occupancy_ratio_low",
    "theoretical_occupancy_low_pct", "registers_high", "waves_low", "span_idle_pct_high", "host_gap_pct_high",
    "kernels_per_call_high", "short_kernel_us", "roofline_fraction_bound", "launch_floor_us",
)


def read_front_matter(path: Path) -> dict[str, Any]:
    """The YAML front matter (between the leading ``---`` lines) of a markdown file."""
    text = Path(path).read_text()
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ValueError(f"{path}: no YAML front matter (first line must be '---')")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ValueError(f"{path}: front matter is not closed by '---'") from None
    meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: front matter is not a mapping")
    return meta


def load_bottleneck_table(path: Path = SKILL_FILE) -> dict[str, Any]:
    """``{"thresholds": {...}, "directions": {class: [names]}}`` from the skill's ``data``.

    Raises:
        ValueError: missing ``data.thresholds``/``data.directions`` keys or unknown classes, naming the file.
    """
    data = read_front_matter(path).get("data")
    if not isinstance(data, dict):
        raise ValueError(f"{path}: front matter has no 'data' mapping")
    th, dirs = data.get("thresholds"), data.get("directions")
    if not isinstance(th, dict):
        raise ValueError(f"{path}: field 'data.thresholds' missing or not a mapping")
    missing = [k for k in REQUIRED_THRESHOLDS if k not in th]
    if missing:
        raise ValueError(f"{path}: field 'data.thresholds' lacks {missing}")
    if not isinstance(dirs, dict) or set(dirs) - set(CLASSES):
        raise ValueError(f"{path}: field 'data.directions' must map classes {CLASSES} to name lists")
    return {"thresholds": {k: float(v) for k, v in th.items()},
            "directions": {k: [str(n) for n in (v or [])] for k, v in dirs.items()}}


def _get(metrics: dict[str, Any], key: str) -> float | None:
    v = metrics.get(key)
    return None if v is None else float(v)


def classify(metrics: dict[str, Any], thresholds: dict[str, float],
             roofline: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """Bottleneck class of a kernel/band from its metric table, checked against the timing roofline.

    Args:
        metrics: Any of ``dram_throughput_pct``, ``sm_throughput_pct``, ``achieved_occupancy_pct``,
            ``theoretical_occupancy_pct``, ``waves_per_sm``, ``registers_per_thread``, ``span_idle_pct``,
            ``host_gap_pct``, ``kernels_per_call``, ``mean_kernel_us`` (missing ones are skipped).
        thresholds: ``data.thresholds`` of ``skills/bottlenecks.md``.
        roofline: The band's timing-roofline evidence (``fraction`` and ``limiter`` of
            :func:`classify_from_roofline`), if any. A ``compute_bound`` verdict from SM % is overruled
            by a memory roofline the band already reaches ``roofline_fraction_bound`` of: SM % counts
            load/store issue, so a kernel streaming its minimum bytes near the bandwidth bound reads
            "SM-busy" (GDN decode at batch 48-64 on the H200: SM 66 %, DRAM 53 % in-kernel, 0.78 of the
            memory roofline — its state writes drain from L2 after the kernel).

    Returns:
        ``(class, evidence)``; the evidence names the rule that fired, its limiter and the metrics used.
    """
    cls, ev = _classify_metrics(metrics, thresholds)
    frac = (roofline or {}).get("fraction")
    if (cls == "compute_bound" and (roofline or {}).get("limiter") == "memory" and frac is not None
            and frac >= thresholds["roofline_fraction_bound"]):
        return "memory_bound", {**ev, "limiter": "DRAM bandwidth (timing roofline)",
                                "rule": f"{ev['rule']}, but at {frac:.2f} >= {thresholds['roofline_fraction_bound']:g} "
                                        "of the memory roofline: SM % is load/store issue",
                                "roofline_fraction": frac}
    return cls, ev


def _classify_metrics(metrics: dict[str, Any], thresholds: dict[str, float]) -> tuple[str, dict[str, Any]]:
    t = thresholds
    dram, sm = _get(metrics, "dram_throughput_pct"), _get(metrics, "sm_throughput_pct")
    ach, theo = _get(metrics, "achieved_occupancy_pct"), _get(metrics, "theoretical_occupancy_pct")
    waves, regs = _get(metrics, "waves_per_sm"), _get(metrics, "registers_per_thread")
    gap, kernels = _get(metrics, "host_gap_pct"), _get(metrics, "kernels_per_call")
    idle = _get(metrics, "span_idle_pct")
    used = {k: v for k, v in metrics.items() if v is not None}

    def out(cls: str, rule: str, limiter: str) -> tuple[str, dict[str, Any]]:
        return cls, {"rule": rule, "limiter": limiter, "metrics": used}

    # host gaps count only between a call's kernels: the official timing spans first kernel start to last
    # kernel end, so the gaps around a single kernel (profiler overhead included) are outside it. With the
    # official latency known, the share of that span no kernel covers must be large too: the profiler's wall
    # time also holds the host work before the first launch, which the span does not (GDN prefill wy3 at 8,192
    # tokens: 58 % host gaps of wall time, but 550 us of kernels in a 0.556 ms span). Measured against warm
    # calls, that share also holds the cold-cache slowdown (the official timing flushes the L2 before each
    # call), so it refutes launch-boundness when small and needs the host gaps' agreement when large.
    multi = kernels is None or kernels > 1
    span_idle = idle is None or idle >= t["span_idle_pct_high"]  # unknown, or the official span largely idle
    if gap is not None and gap >= t["host_gap_pct_high"] and multi and span_idle:
        span = "" if idle is None else f", span_idle_pct {idle:.1f} >= {t['span_idle_pct_high']:g}"
        return out("launch_bound", f"host_gap_pct {gap:.1f} >= {t['host_gap_pct_high']:g}{span} "
                                   f"with {kernels if kernels is not None else '?'} kernels per call", "host gaps")
    # many launches matter only when the kernels are short: 57 launches of 200 us mean (the MoE at 14,107 tokens,
    # two GEMMs dominate) are not launch-bound, whatever the count
    mean_us = _get(metrics, "mean_kernel_us")
    if (kernels is not None and kernels > t["kernels_per_call_high"] and (dram is None or dram < t["low_throughput_pct"])
            and (mean_us is None or mean_us < t["short_kernel_us"])):
        short = "" if mean_us is None else f" of {mean_us:.1f} us mean < {t['short_kernel_us']:g}"
        return out("launch_bound", f"{kernels:g} kernels per call > {t['kernels_per_call_high']:g}{short}", "launches")
    if dram is not None and sm is not None:
        hi = t["high_throughput_pct"]
        if dram >= hi and (dram - sm >= t["dominance_gap_pct"] or dram >= sm):
            return out("memory_bound", f"dram {dram:.1f}% >= {hi:g}% and >= sm {sm:.1f}%", "DRAM bandwidth")
        if sm >= hi and sm > dram:
            return out("compute_bound", f"sm {sm:.1f}% >= {hi:g}% and > dram {dram:.1f}%", "SM issue/pipes")
    if waves is not None and waves < t["waves_low"]:
        return out("occupancy_limited", f"waves_per_sm {waves:.2f} < {t['waves_low']:g}", "grid too small")
    if ach is not None and theo:
        if ach / theo < t["occupancy_ratio_low"]:
            return out("occupancy_limited", f"achieved/theoretical {ach / theo:.2f} < {t['occupancy_ratio_low']:g}",
                       "scheduling")
        if theo < t["theoretical_occupancy_low_pct"] and regs is not None and regs >= t["registers_high"]:
            return out("occupancy_limited", f"theoretical {theo:.1f}% with {regs:g} registers/thread",
                       "register pressure")
    if dram is not None and sm is not None:
        lo = t["low_throughput_pct"]
        if dram < lo and sm < lo:
            return out("latency_bound", f"dram {dram:.1f}% and sm {sm:.1f}% both < {lo:g}%", "latency (stalls)")
        if dram - sm >= t["dominance_gap_pct"]:
            return out("memory_bound", f"dram {dram:.1f}% exceeds sm {sm:.1f}% by >= {t['dominance_gap_pct']:g}",
                       "memory system")
        if sm - dram >= t["dominance_gap_pct"]:
            return out("compute_bound", f"sm {sm:.1f}% exceeds dram {dram:.1f}% by >= {t['dominance_gap_pct']:g}",
                       "SM issue/pipes")
        return out("latency_bound", "no unit dominates and none is near its peak", "latency (stalls)")
    raise ValueError(f"classify: metrics need dram/sm throughput, occupancy, waves or host gaps; got {sorted(used)}")


def classify_from_roofline(bound_ms: float | None, measured_ms: float, thresholds: dict[str, float], *,
                           limiter: str | None = None, launch_count: int = 1) -> tuple[str, dict[str, Any]]:
    """Bottleneck class from timings only (no profiler).

    Args:
        bound_ms: Roofline lower bound (None on CPU: only the launch floor can be judged).
        measured_ms: Measured latency (ms).
        thresholds: ``data.thresholds`` of ``skills/bottlenecks.md``.
        limiter: ``"memory"`` or ``"compute"`` — the roofline's binding term.
        launch_count: Kernels per call (a multi-kernel call has a higher launch floor).

    Returns:
        ``(class, evidence)``; ``latency_bound`` when far from the roofline and above the launch floor,
        ``"unknown"`` when there is no bound and the call is above the launch floor.
    """
    t = thresholds
    floor_ms = t["launch_floor_us"] * 1e-3 * max(1, launch_count)
    frac = None if bound_ms is None or measured_ms <= 0 else bound_ms / measured_ms
    ev: dict[str, Any] = {"bound_ms": bound_ms, "measured_ms": measured_ms, "fraction": frac,
                          "limiter": limiter, "launch_count": launch_count, "launch_floor_ms": floor_ms}
    if frac is not None and frac >= t["roofline_fraction_bound"]:
        cls = "compute_bound" if limiter == "compute" else "memory_bound"
        return cls, {**ev, "rule": f"fraction {frac:.2f} >= {t['roofline_fraction_bound']:g} of the {limiter or 'memory'} roofline"}
    if measured_ms < floor_ms:
        return "launch_bound", {**ev, "rule": f"measured {measured_ms * 1e3:.2f} us < launch floor {floor_ms * 1e3:.2f} us"}
    if frac is None:
        return UNKNOWN, {**ev, "rule": "no roofline bound (no device ceilings) and above the launch floor"}
    return "latency_bound", {**ev, "rule": "far from the roofline and above the launch floor"}
