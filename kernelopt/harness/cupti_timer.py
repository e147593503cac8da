"""CUPTI activity timer (the official method, FlashInfer ``bench_gpu_time_with_cupti`` design).

Per timed iteration: CPU timestamps ``t0``/``t1`` (CUPTI clock) bracket the call. CUPTI records every
runtime/driver API call (start time + correlation id) and every GPU kernel, memcpy and memset (start,
end, correlation id). The iteration's GPU activities are those whose launching API call started in
``[t0, t1]``; its time is ``last end - first start`` over them, so CPU work before the first launch is
excluded, gaps between kernels of one call are included, and the L2 flush (launched before ``t0``) is
left out. An iteration with no activity raises "No kernel activities recorded for iteration i"; a
different set of (name, copy kind, bytes, value, kind) between iterations raises "Inconsistent kernel
names" (the solution skipped or changed launches) - ``evaluate`` reports both as ``RUNTIME_ERROR``.

Needs ``cupti-python`` >= 13 (module ``cupti``); :func:`cupti_available` says whether it imports.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

_BUFFER_BYTES = 8 * 1024 * 1024


class TimingError(RuntimeError):
    """Timing could not produce a trustworthy figure (reported as ``RUNTIME_ERROR``)."""


class ApiCall(NamedTuple):
    """A runtime/driver API record: when it started and returned (ns, CUPTI clock: the GPU records' clock) and its
    correlation id (``end`` 0: not recorded)."""

    start: int
    correlation_id: int
    end: int = 0


class GpuActivity(NamedTuple):
    """A kernel / memcpy / memset record: identity signature, GPU start/end (ns), correlation id."""

    signature: Hashable
    start: int
    end: int
    correlation_id: int


def cupti_version() -> str | None:
    """Installed ``cupti-python`` version if ``from cupti import cupti`` works, else ``None``."""
    try:
        import importlib
        from importlib.metadata import version

        importlib.import_module("cupti.cupti")
        return version("cupti-python")
    except Exception:
        return None


def cupti_available() -> bool:
    """True when cupti-python >= 13 imports (older majors lack the activity API FlashInfer uses)."""
    v = cupti_version()
    try:
        return v is not None and int(v.split(".")[0]) >= 13
    except ValueError:
        return False


def window_activities(windows: Sequence[tuple[int, int]], api_calls: Sequence[ApiCall],
                      activities: Sequence[GpuActivity]) -> list[list[GpuActivity]]:
    """The GPU activities of each timed call: those whose launch (API record, by correlation id) started inside the
    call's CPU window.

    Raises:
        TimingError: An iteration without GPU activity, or a kernel set differing between iterations.
    """
    by_corr: dict[int, list[GpuActivity]] = defaultdict(list)
    for a in activities:
        by_corr[a.correlation_id].append(a)
    starts = sorted((c.start, c.correlation_id) for c in api_calls)
    start_times = [s for s, _ in starts]
    out: list[list[GpuActivity]] = []
    first_names: set[Hashable] | None = None
    for i, (t0, t1) in enumerate(windows):
        # binary search: a launch-heavy callable (e.g. a reference with thousands of launches per
        # call) yields millions of API records, and a scan per window would cost minutes
        lo, hi = bisect_left(start_times, t0), bisect_right(start_times, t1)
        corr = {cid for _, cid in starts[lo:hi]}
        acts = [a for cid in corr for a in by_corr.get(cid, ())]
        if not acts:
            raise TimingError(f"No kernel activities recorded for iteration {i}")
        names = {a.signature for a in acts}
        if first_names is None:
            first_names = names
        elif names != first_names:
            raise TimingError(f"Inconsistent kernel names between iterations: iteration 0 "
                              f"{sorted(map(str, first_names))} != iteration {i} {sorted(map(str, names))}")
        out.append(acts)
    return out


def iteration_spans(windows: Sequence[tuple[int, int]], api_calls: Sequence[ApiCall],
                    activities: Sequence[GpuActivity]) -> list[float]:
    """Per-iteration GPU time (ms) from CPU launch windows and CUPTI records: the span from the first activity's
    start to the last one's end (:func:`window_activities` picks each call's activities).

    Args:
        windows: ``(t0, t1)`` CPU timestamps (ns) bracketing each timed call.
        api_calls: Runtime/driver API records.
        activities: GPU activity records.

    Returns:
        One span per window, in ms.

    Raises:
        TimingError: An iteration without GPU activity, or a kernel set differing between iterations.
    """
    return _spans_ms(window_activities(windows, api_calls, activities))


def _spans_ms(per_call: Sequence[Sequence[GpuActivity]]) -> list[float]:
    return [(max(a.end for a in acts) - min(a.start for a in acts)) / 1e6 for acts in per_call]


def records_anatomy(records: dict[str, Any]) -> dict[str, Any] | None:
    """:func:`~kernelopt.analysis.span_anatomy.span_anatomy` of the calls :func:`time_with_cupti` timed, from the
    per-call activities it handed back (``None`` when there are none, e.g. another timer ran)."""
    if not records.get("per_call"):
        return None
    from kernelopt.analysis.span_anatomy import span_anatomy

    launches = records.get("launches") or {}
    return span_anatomy([[(a.signature, a.start, a.end, *launches.get(a.correlation_id, ())) for a in acts]
                         for acts in records["per_call"]])


def launch_calls(api_calls: Sequence[ApiCall], ids: set[int] | None = None) -> dict[int, tuple[int, int]]:
    """Per correlation id (those in ``ids``; ``None``: all), the host API call that launched it: its outermost
    ``(start, return)`` (ns) over the runtime and driver records sharing the id (records without a return time are
    left out)."""
    out: dict[int, tuple[int, int]] = {}
    for c in api_calls:
        if c.end <= 0 or (ids is not None and c.correlation_id not in ids):
            continue
        s, e = out.get(c.correlation_id, (c.start, c.end))
        out[c.correlation_id] = (min(s, c.start), max(e, c.end))
    return out


def official_span(records: dict[str, Any]) -> dict[str, Any] | None:
    """The compact form (:func:`~kernelopt.analysis.span_anatomy.span_evidence`) of :func:`records_anatomy`."""
    from kernelopt.analysis.span_anatomy import span_evidence

    anatomy = records_anatomy(records)
    return None if anatomy is None else span_evidence(anatomy)


class _Process:
    """Process-wide CUPTI state. Buffer callbacks are registered once and kept; each timing enables the
    activity kinds, points ``sink`` at its collector, flushes, and disables them again. Tearing CUPTI
    down (``cupti.finalize``) after every trial made the next trial initialise it again, which cost far
    more host time than the timed calls themselves (six cycles per workload: three trials, solution and
    reference). ``persistent=False`` keeps the old per-call finalize (measured side by side in
    ``benchmarks/timer_overhead.py``)."""

    registered = False
    sink: Callable[[Any], None] | None = None
    #: Host seconds of the last timing's phases and its record counts (read by benchmarks/timer_overhead.py).
    last_stats: dict[str, float] = {}


def last_timing_stats() -> dict[str, float]:
    """Host seconds of the last CUPTI timing's phases (``enable_s``, ``calls_s``, ``flush_s``, ``disable_s``,
    ``total_s``) and its record counts; ``{}`` before the first."""
    return dict(_Process.last_stats)


def _requested() -> tuple[int, int]:
    return _BUFFER_BYTES, 0


def _completed(records: Any) -> None:
    sink = _Process.sink
    if sink is not None:  # records outside a timing window (none are expected) are dropped
        sink(records)


def _collector(cupti: Any, api_calls: list[ApiCall], activities: list[GpuActivity]) -> Callable[[Any], None]:
    gpu_kinds = {int(cupti.ActivityKind.CONCURRENT_KERNEL), int(cupti.ActivityKind.MEMCPY),
                 int(cupti.ActivityKind.MEMSET)}
    api_kinds = {int(cupti.ActivityKind.RUNTIME), int(cupti.ActivityKind.DRIVER)}
    kernel_kind = int(cupti.ActivityKind.CONCURRENT_KERNEL)
    memcpy_kind = int(cupti.ActivityKind.MEMCPY)
    add_api, add_act = api_calls.append, activities.append

    def completed(records: Any) -> None:
        # Records live in a CUPTI-owned buffer: copy the fields out before returning. Hot loop (one
        # pass per record): no per-record objects beyond the tuples kept.
        for a in records:
            kind = int(a.kind)
            if kind in api_kinds:
                add_api(ApiCall(int(a.start), int(a.correlation_id), int(a.end)))
            elif kind in gpu_kinds:
                if kind == kernel_kind:
                    sig: Hashable = ("kernel", str(a.name), 0, 0, 0)
                elif kind == memcpy_kind:
                    sig = ("memcpy", "MEMCPY", int(a.copy_kind), int(a.bytes), 0)
                else:
                    sig = ("memset", "MEMSET", 0, int(a.bytes), int(a.value))
                add_act(GpuActivity(sig, int(a.start), int(a.end), int(a.correlation_id)))

    return completed


def time_with_cupti(call: Callable[[], Any], iterations: int, flush: Callable[[], Any] | None,
                    synchronize: Callable[[], Any], persistent: bool = True,
                    records: dict[str, Any] | None = None) -> list[float]:
    """Time ``iterations`` calls with CUPTI activity tracing (warm-up is the caller's job).

    Each iteration: ``flush()``, ``synchronize()``, t0, ``call()``, t1, ``synchronize()``.

    Args:
        persistent: Keep CUPTI initialised between calls (see :class:`_Process`); ``False`` finalises it
            afterwards (one full CUPTI start-up per call).
        records: When given, receives ``per_call``: each timed call's GPU activities (:func:`window_activities`),
            e.g. for :func:`kernelopt.analysis.span_anatomy.span_anatomy`, and ``launches``: the host API call that
            launched each of them (:func:`launch_calls`, by correlation id).

    Returns:
        Per-iteration GPU time in ms.

    Raises:
        TimingError: See :func:`iteration_spans`; also when cupti-python is missing.
    """
    try:
        from cupti import cupti
    except Exception as exc:
        raise TimingError(f"cupti-python is not importable: {exc}") from None
    api_calls: list[ApiCall] = []
    activities: list[GpuActivity] = []
    kinds = [cupti.ActivityKind.RUNTIME, cupti.ActivityKind.DRIVER, cupti.ActivityKind.CONCURRENT_KERNEL,
             cupti.ActivityKind.MEMCPY, cupti.ActivityKind.MEMSET]
    windows: list[tuple[int, int]] = []
    enabled = []
    _Process.sink = _collector(cupti, api_calls, activities)
    clock = time.perf_counter
    stats: dict[str, float] = {}
    t_start = clock()
    try:
        if not _Process.registered:
            cupti.activity_register_callbacks(_requested, _completed)
            _Process.registered = True
        for k in kinds:
            cupti.activity_enable(k)
            enabled.append(k)
        stats["enable_s"] = clock() - t_start
        t_loop = clock()
        for _ in range(iterations):
            if flush is not None:
                flush()
            synchronize()
            t0 = cupti.get_timestamp()
            call()
            t1 = cupti.get_timestamp()
            synchronize()
            windows.append((int(t0), int(t1)))
        stats["calls_s"] = clock() - t_loop
        t_flush = clock()
        cupti.activity_flush_all(1)  # forced: every buffer, also partly filled ones, reaches the sink now
        stats["flush_s"] = clock() - t_flush
    finally:
        t_off = clock()
        for k in enabled:
            try:
                cupti.activity_disable(k)
            except Exception:
                pass
        if not persistent:
            try:
                cupti.finalize()
            except Exception:
                pass
            _Process.registered = False
        _Process.sink = None
        stats.update(disable_s=clock() - t_off, total_s=clock() - t_start, api_records=len(api_calls),
                     gpu_records=len(activities), iterations=iterations)
        _Process.last_stats = stats
    per_call = window_activities(windows, api_calls, activities)
    if records is not None:
        records["per_call"] = per_call
        records["launches"] = launch_calls(api_calls, {a.correlation_id for acts in per_call for a in acts})
    return _spans_ms(per_call)
