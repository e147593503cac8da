"""Anatomy of the official timing's span: where each kernel of a call starts and how long the GPU idles between
them (pure; the records come from the CUPTI timer, :func:`kernelopt.harness.cupti_timer.window_activities`).

The official span runs from a call's first kernel start to its last kernel end. A profile's device time against
that latency says how much of the span is idle, but not where: between which launches, and whether the profile's
passes reproduce the official loop (on the H200 they did not always, 2026-12-02: a MoE call read ~90 us more than
its device time). Here every timed iteration gives, per activity in start order, its start offset from the span's
start, its duration and the idle gap before it; :func:`span_anatomy` takes the medians over iterations, position
by position (the kernel set is the same in every iteration: the timer checks it).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from statistics import median
from typing import Any

#: one GPU activity of a call: (signature or name, start ns, end ns[, its launch call's host start ns, return ns])
Activity = tuple


def _label(signature: Hashable) -> str:
    """A readable name: a kernel's name from the timer's ``("kernel", name, ...)`` signature, else ``str``."""
    if isinstance(signature, tuple) and len(signature) > 1:
        return str(signature[1])
    return str(signature)


def busy_ns(intervals: Sequence[tuple[int, int]]) -> int:
    """Length of the union of ``(start, end)`` intervals (overlapping kernels count once)."""
    total, cur_start, cur_end = 0, None, None
    for start, end in sorted(intervals):
        if cur_end is None or start > cur_end:
            if cur_end is not None:
                total += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    if cur_end is not None:
        total += cur_end - cur_start
    return total


def span_anatomy(iterations: Sequence[Sequence[Activity]]) -> dict[str, Any]:
    """Medians over ``iterations`` (each: the activities of one timed call) of the span (us), the GPU's busy time
    in it (us, the union of the activities), the idle share (%), and per activity position (start order): its
    name, start offset (us from the span's start), duration (us) and the idle gap before it (us; 0 for the first,
    and for an activity that starts before the previous one ends). Activities that carry their launch call's host
    start and return (the timer's API records, same clock) also get ``launch_us`` / ``launch_return_us``: when the
    host called and returned from the launch, from the span's start (negative: before it) - a gap whose activity
    starts right after its launch returns is the GPU waiting for the host, and the launch times show where the
    host's time went."""
    if not iterations or any(not acts for acts in iterations):
        raise ValueError("span_anatomy: every iteration needs at least one activity")
    width = len(iterations[0])
    if any(len(acts) != width for acts in iterations):
        raise ValueError("span_anatomy: the iterations have different numbers of activities")
    spans, busy, rows = [], [], [[] for _ in range(width)]
    for acts in iterations:
        ordered = sorted(acts, key=lambda a: (a[1], a[2]))
        t0, t1 = ordered[0][1], max(a[2] for a in ordered)
        spans.append((t1 - t0) / 1e3)
        busy.append(busy_ns([(a[1], a[2]) for a in ordered]) / 1e3)
        prev_end = t0
        for k, (sig, start, end, *launch) in enumerate(ordered):
            called = tuple((x - t0) / 1e3 for x in launch[:2]) if len(launch) >= 2 else ()
            rows[k].append((_label(sig), (start - t0) / 1e3, (end - start) / 1e3, max(0, start - prev_end) / 1e3,
                            *called))
            prev_end = max(prev_end, end)
    span, used = median(spans), median(busy)
    kernels = [{"name": max({n for n, *_ in row}, key=[n for n, *_ in row].count),
                "start_us": median(r[1] for r in row), "duration_us": median(r[2] for r in row),
                "gap_before_us": median(r[3] for r in row),
                **({"launch_us": median(r[4] for r in row), "launch_return_us": median(r[5] for r in row)}
                   if all(len(r) == 6 for r in row) else {})} for row in rows]
    return {"iterations": len(iterations), "span_us": span, "busy_us": used,
            "idle_pct": max(0.0, 100.0 * (1.0 - used / span)) if span > 0 else 0.0, "activities": kernels}


def span_evidence(anatomy: dict[str, Any], top: int = 3) -> dict[str, Any]:
    """The compact part of :func:`span_anatomy` kept with every timed workload: the span, busy time and idle share,
    the number of activities per call, and the ``top`` largest idle gaps with the activity each one precedes."""
    gaps = sorted(((a["gap_before_us"], a["name"]) for a in anatomy["activities"] if a["gap_before_us"] > 0),
                  reverse=True)[:top]
    return {"span_us": round(anatomy["span_us"], 3), "busy_us": round(anatomy["busy_us"], 3),
            "idle_pct": round(anatomy["idle_pct"], 2), "activities": len(anatomy["activities"]),
            "largest_gaps": [{"gap_us": round(g, 3), "before": n} for g, n in gaps]}
