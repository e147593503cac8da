"""Profiles of one (solution, workload): a torch.profiler kernel table (always) and, where the ``ncu``
binary exists and the device is a GPU, a compact Nsight Compute metric set (:mod:`kernelopt.harness.ncu`).

Asked for with ``EvalRequest.profile``; run by :func:`kernelopt.harness.evaluate.evaluate` after a
workload PASSED, on its first trial's inputs, in a child process (:mod:`kernelopt.harness.profile_target`)
so that no profiler state is left in the worker that times the next workloads (profiling never changes
a latency figure). The result lands in ``EvalResult.profile["workloads"][uuid]`` and is
logged as the candidate run's ``profile.json``;
:func:`kernelopt.analysis.profile_parse.bottleneck_metrics` turns it into the metric table
:func:`kernelopt.analysis.bottleneck.classify` reads.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from kernelopt.analysis.profile_parse import kernel_table
from kernelopt.data.records import EvalRequest
from kernelopt.harness.timing import l2_flush_bytes

PROFILED_CALLS = 5
_TOP_HOST_OPS = 10


def _events(averages: Any) -> list[dict[str, Any]]:
    """torch.profiler ``key_averages()`` rows as :func:`~kernelopt.analysis.profile_parse.kernel_table` reads."""
    return [{"key": e.key, "count": e.count, "device_type": str(e.device_type),
             "self_device_time_total": float(getattr(e, "self_device_time_total", 0.0)
                                             or getattr(e, "self_cuda_time_total", 0.0) or 0.0)}
            for e in averages]


def _flushed_calls(fn: Callable[..., Any], args: Sequence[Any], buf: torch.Tensor, device: torch.device, calls: int,
                   synced: bool) -> None:
    """``calls`` calls of ``fn(*args)``, each after zeroing ``buf`` (the L2 flush); ``synced``: a synchronize
    after the flush and after the call, as the official CUPTI loop does (the GPU idles while the host issues the
    next pair), else flush and call issued back to back (one synchronize at the end: the GPU never idles)."""
    for _ in range(calls):
        buf.zero_()
        if synced:
            torch.cuda.synchronize(device)
        fn(*args)
        if synced:
            torch.cuda.synchronize(device)
    if not synced:
        torch.cuda.synchronize(device)


def cold_pass(fn: Callable[..., Any], args: Sequence[Any], device: torch.device, calls: int,
              solution_kernels: set[str]) -> dict[str, Any]:
    """Device time per call with the L2 flushed before each call, as the official timing does (a buffer of the
    official timing's own size, :func:`~kernelopt.harness.timing.l2_flush_bytes`, zeroed before each call), under
    torch.profiler, issued two ways: as the official CUPTI loop issues them, a synchronize after the flush and
    after the call (``cold_*``), and back to back with no synchronize between calls (``cold_b2b_*``, after one
    unprofiled round of the same calls), so that the GPU never idles between them. Why both: the first H200 cold
    pass (2026-12-02, the one-launch DSA indexer at 4 x 34 pages) read 32.4-34.9 us against a 23.5 us official
    latency on the same inputs; under the profiler the host takes ~0.9 ms per call, so the GPU idles far longer
    between the synchronized calls than in the official loop. The back-to-back figure agreed with the official one
    (call BP: 24.0 / 24.5 us back to back, 29.8 / 33.7 synchronized, 23.5 / 22.5 official for the two one-launch
    indexers): the idle time, not the caches, made the difference. The flush's own kernels, named by a profile of one
    flush alone, are left out of the tables.

    Returns ``{"cold_device_us_per_call", "cold_kernels_per_call", "cold_b2b_device_us_per_call",
    "cold_b2b_kernels_per_call", "cold_flush_bytes"}``, or ``{"cold_error"}`` when a flush kernel's name is also
    one of ``solution_kernels`` (it could not be told apart)."""
    from torch.profiler import ProfilerActivity, profile

    nbytes = l2_flush_bytes(device)
    buf = torch.empty(nbytes, dtype=torch.int8, device=device)
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=activities) as alone:
        buf.zero_()
        torch.cuda.synchronize(device)
    flush = {e["key"] for e in _events(alone.key_averages()) if e["self_device_time_total"] > 0}
    if flush & solution_kernels:
        return {"cold_error": f"the L2 flush's kernel {sorted(flush & solution_kernels)} is also the solution's"}
    out: dict[str, Any] = {}
    for prefix, synced in (("cold", True), ("cold_b2b", False)):
        if not synced:
            _flushed_calls(fn, args, buf, device, calls, synced)  # a busy GPU before the profiled round
        with profile(activities=activities) as prof:
            _flushed_calls(fn, args, buf, device, calls, synced)
        table = kernel_table([e for e in _events(prof.key_averages()) if e["key"] not in flush], calls=calls)
        out[f"{prefix}_device_us_per_call"] = table["device_us_per_call"]
        out[f"{prefix}_kernels_per_call"] = table["kernels_per_call"]
    out["cold_flush_bytes"] = nbytes
    return out


def torch_profile(fn: Callable[..., Any], args: Sequence[Any], device: torch.device,
                  calls: int = PROFILED_CALLS) -> dict[str, Any]:
    """``calls`` calls of ``fn(*args)`` (after one unprofiled call) under torch.profiler.

    Returns:
        :func:`~kernelopt.analysis.profile_parse.kernel_table` of the device kernels (empty on a CPU)
        plus ``host_ops``: the top host-side ops by self CPU time, ``calls`` and ``wall_us_per_call``; on a GPU
        also :func:`cold_pass`'s device time per call with the L2 flushed before each call (the warm calls
        above run back to back with the caches full; the official timing flushes the L2 before every call).
    """
    from torch.profiler import ProfilerActivity, profile

    cuda = device.type == "cuda"

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize(device)

    fn(*args)
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    # a second CUPTI client (Kineto): only ever run in a profile_target child, never in a timing worker
    with profile(activities=activities) as prof:
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        sync()
        wall_us = (time.perf_counter() - t0) * 1e6
    averages = prof.key_averages()
    table = kernel_table(_events(averages), calls=calls, wall_us=wall_us if cuda else None)
    host = sorted(((e.key, e.count, float(e.self_cpu_time_total)) for e in averages if e.self_cpu_time_total > 0),
                  key=lambda r: -r[2])[:_TOP_HOST_OPS]
    table["host_ops"] = [{"name": k, "count": int(c), "self_cpu_us": round(t, 3)} for k, c, t in host]
    table["calls"] = calls
    table["wall_us_per_call"] = wall_us / calls
    if cuda and table["kernels"]:
        try:  # evidence, never a reason to lose the warm table
            table.update(cold_pass(fn, args, device, calls, {k["name"] for k in table["kernels"]}))
        except Exception as exc:  # noqa: BLE001
            table["cold_error"] = f"{type(exc).__name__}: {exc}"[:500]
    return table


def run_profile_target(mode: str, request: EvalRequest, device: str, timeout_s: float,
                       wrapper: Sequence[str] = ()) -> tuple[subprocess.CompletedProcess[str] | None, dict[str, Any]]:
    """Run :mod:`kernelopt.harness.profile_target` in ``mode`` on the request's first workload, under
    ``wrapper`` (e.g. the ncu command line). Returns the finished process, or ``None`` and an
    ``{"error": ...}`` record when it could not start or timed out."""
    one = request.model_copy(update={"workloads": request.workloads[:1], "profile": False})
    with tempfile.TemporaryDirectory(prefix="kernelopt-profile-") as tmp:
        path = Path(tmp) / "request.json"
        path.write_text(one.model_dump_json())
        cmd = [*wrapper, sys.executable, "-m", "kernelopt.harness.profile_target", mode, str(path), device]
        short = cmd[:9]
        try:  # own session: a time-out kills the wrapper (ncu) and the target it started
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
        except OSError as exc:
            return None, {"error": f"{mode} profile could not start: {exc}", "command": short}
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, {"error": f"{mode} profile timed out after {timeout_s:g} s", "command": short}
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err), {}


def torch_profile_isolated(request: EvalRequest, device: str, timeout_s: float = 300.0) -> dict[str, Any]:
    """:func:`torch_profile` of the request's first workload, in a child process; a failure is
    ``{"error": ...}``, never an exception."""
    proc, err = run_profile_target("torch", request, device, timeout_s)
    if proc is None:
        return err
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": f"torch profile exited with {proc.returncode}: {(proc.stderr or proc.stdout)[-1500:]}"}
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as exc:
        return {"error": f"unparsable torch profile: {exc}"}
