"""Nsight Compute metrics of one (solution, workload), when the ``ncu`` binary exists.

``ncu`` re-runs the candidate in a child process (:mod:`kernelopt.harness.profile_target` in ``ncu``
mode: build, inputs, one call between ``cudaProfilerStart``/``Stop``), collecting only the compact metric set of
:data:`kernelopt.analysis.profile_parse.NCU_METRICS` for the kernels launched inside that window
(``--profile-from-start off``), as CSV that :func:`~kernelopt.analysis.profile_parse.parse_ncu_csv`
turns into one metrics dict per launch. ``--clock-control none``: ncu's default locks the GPU clocks to
base during the run, and this platform never changes a GPU's clocks (the metrics then reflect the clocks
the kernel is timed at). Failures (no binary, a time-out, no permission to read the
performance counters, an unparsable report) come back as ``{"error": ...}``, never as an exception.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from typing import Any

from kernelopt.analysis.profile_parse import NCU_METRICS, parse_ncu_csv
from kernelopt.data.records import EvalRequest
from kernelopt.harness.profiling import run_profile_target

#: Raw metric names asked of ncu (the first name of each compact metric).
METRICS = tuple(names[0] for names in NCU_METRICS.values())
DEFAULT_TIMEOUT_S = 300.0


def ncu_binary() -> str | None:
    """``$KERNELOPT_NCU`` when set, else ``ncu`` on the PATH (``None`` when neither exists)."""
    return os.environ.get("KERNELOPT_NCU") or shutil.which("ncu")


def ncu_wrapper(binary: str, page: str = "raw", selection: Sequence[str] | None = None) -> list[str]:
    """The ncu command line that the profile target runs under: CSV of ``page`` for the launches inside the
    profiler window, clocks untouched; ``selection`` (default: ``--metrics`` of the compact set) says what to collect
    (``--section``s, a ``-k`` kernel filter...)."""
    what = list(selection) if selection is not None else ["--metrics", ",".join(METRICS)]
    return [binary, "--csv", "--page", page, "--profile-from-start", "off", "--target-processes", "all",
            "--clock-control", "none", *what]


def ncu_report(request: EvalRequest, device: str, timeout_s: float = DEFAULT_TIMEOUT_S, page: str = "raw",
               selection: Sequence[str] | None = None,
               parse: Callable[[str], list[dict[str, Any]]] = parse_ncu_csv) -> dict[str, Any]:
    """ncu's report of the request's first workload (:func:`ncu_wrapper`'s ``page`` and ``selection``):
    ``{"launches": parse(csv), "report": csv}``, or ``{"error": ...}`` (with the report when it was unparsable)."""
    binary = ncu_binary()
    if binary is None:
        return {"error": "ncu not found (PATH or $KERNELOPT_NCU)"}
    wrapper = ncu_wrapper(binary, page, selection)
    proc, err = run_profile_target("ncu", request, device, timeout_s, wrapper)
    if proc is None:
        return err
    if proc.returncode != 0:
        return {"error": f"ncu exited with {proc.returncode}: {(proc.stderr or proc.stdout)[-1500:]}",
                "command": wrapper[:9]}
    try:
        launches = parse(proc.stdout)
    except ValueError as exc:
        return {"error": f"unparsable ncu report: {exc}; stderr: {proc.stderr[-500:]}", "command": wrapper[:9],
                "report": proc.stdout}
    return {"launches": launches, "report": proc.stdout}


def ncu_profile(request: EvalRequest, device: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
    """Per-launch Nsight Compute metrics (the compact set) of the request's first workload (see the module doc)."""
    out = ncu_report(request, device, timeout_s)
    if "error" in out:
        return {k: v for k, v in out.items() if k != "report"}
    return {"launches": out["launches"], "metrics": list(METRICS)}
