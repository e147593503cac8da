"""Profiles of one (solution, workload): a torch.profiler kernel table (always) and, where the ``ncu``
binary exists and the device is a GPU, a compact Nsight Compute metric set (:mod:`kernelopt.harness.ncu`).

Asked for with ``EvalRequest.profile``; run by :func:`kernelopt.harness.evaluate.evaluate` after a
workload PASSED, on a fresh copy of its first trial's inputs, outside the timed window (profiling
never changes a latency figure). The result lands in ``EvalResult.profile["workloads"][uuid]`` and is
logged as the candidate run's ``profile.json``;
:func:`kernelopt.analysis.profile_parse.bottleneck_metrics` turns it into the metric table
:func:`kernelopt.analysis.bottleneck.classify` reads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from kernelopt.analysis.profile_parse import kernel_table
from kernelopt.harness.cupti_timer import callbacks_replaced

PROFILED_CALLS = 5
_TOP_HOST_OPS = 10


def torch_profile(fn: Callable[..., Any], args: Sequence[Any], device: torch.device,
                  calls: int = PROFILED_CALLS) -> dict[str, Any]:
    """``calls`` calls of ``fn(*args)`` (after one unprofiled call) under torch.profiler.

    Returns:
        :func:`~kernelopt.analysis.profile_parse.kernel_table` of the device kernels (empty on a CPU)
        plus ``host_ops``: the top host-side ops by self CPU time, ``calls`` and ``wall_us_per_call``.
    """
    from torch.profiler import ProfilerActivity, profile

    cuda = device.type == "cuda"

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize(device)

    fn(*args)
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    try:
        with profile(activities=activities) as prof:
            t0 = time.perf_counter()
            for _ in range(calls):
                fn(*args)
            sync()
            wall_us = (time.perf_counter() - t0) * 1e6
    finally:
        if cuda:  # Kineto registered its CUPTI buffer callbacks over the timer's
            callbacks_replaced()
    averages = prof.key_averages()
    events = [{"key": e.key, "count": e.count, "device_type": str(e.device_type),
               "self_device_time_total": float(getattr(e, "self_device_time_total", 0.0)
                                               or getattr(e, "self_cuda_time_total", 0.0) or 0.0)}
              for e in averages]
    table = kernel_table(events, calls=calls, wall_us=wall_us if cuda else None)
    host = sorted(((e.key, e.count, float(e.self_cpu_time_total)) for e in averages if e.self_cpu_time_total > 0),
                  key=lambda r: -r[2])[:_TOP_HOST_OPS]
    table["host_ops"] = [{"name": k, "count": int(c), "self_cpu_us": round(t, 3)} for k, c, t in host]
    table["calls"] = calls
    table["wall_us_per_call"] = wall_us / calls
    return table
