"""Nsight Compute metrics of one (solution, workload), when the ``ncu`` binary exists.

``ncu`` re-runs the candidate in a child process (:mod:`kernelopt.harness.ncu_target`: build, inputs,
one call between ``cudaProfilerStart``/``Stop``), collecting only the compact metric set of
:data:`kernelopt.analysis.profile_parse.NCU_METRICS` for the kernels launched inside that window
(``--profile-from-start off``), as CSV that :func:`~kernelopt.analysis.profile_parse.parse_ncu_csv`
turns into one metrics dict per launch. Failures (no binary, a time-out, no permission to read the
performance counters, an unparsable report) come back as ``{"error": ...}``, never as an exception.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from kernelopt.analysis.profile_parse import NCU_METRICS, parse_ncu_csv
from kernelopt.data.records import EvalRequest

#: Raw metric names asked of ncu (the first name of each compact metric).
METRICS = tuple(names[0] for names in NCU_METRICS.values())
DEFAULT_TIMEOUT_S = 300.0


def ncu_binary() -> str | None:
    """``$KERNELOPT_NCU`` when set, else ``ncu`` on the PATH (``None`` when neither exists)."""
    return os.environ.get("KERNELOPT_NCU") or shutil.which("ncu")


def ncu_command(binary: str, request_file: Path, device: str) -> list[str]:
    """The ncu command line profiling the target module on ``request_file``."""
    return [binary, "--csv", "--page", "raw", "--profile-from-start", "off", "--target-processes", "all",
            "--metrics", ",".join(METRICS), sys.executable, "-m", "kernelopt.harness.ncu_target",
            str(request_file), device]


def ncu_profile(request: EvalRequest, device: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
    """Per-launch Nsight Compute metrics of the request's first workload (see the module doc)."""
    binary = ncu_binary()
    if binary is None:
        return {"error": "ncu not found (PATH or $KERNELOPT_NCU)"}
    one = request.model_copy(update={"workloads": request.workloads[:1], "profile": False})
    with tempfile.TemporaryDirectory(prefix="kernelopt-ncu-") as tmp:
        path = Path(tmp) / "request.json"
        path.write_text(one.model_dump_json())
        cmd = ncu_command(binary, path, device)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return {"error": f"ncu timed out after {timeout_s:g} s", "command": cmd[:9]}
        except OSError as exc:
            return {"error": f"ncu could not start: {exc}", "command": cmd[:9]}
    if proc.returncode != 0:
        return {"error": f"ncu exited with {proc.returncode}: {(proc.stderr or proc.stdout)[-1500:]}",
                "command": cmd[:9]}
    try:
        launches = parse_ncu_csv(proc.stdout)
    except ValueError as exc:
        return {"error": f"unparsable ncu report: {exc}; stderr: {proc.stderr[-500:]}", "command": cmd[:9]}
    return {"launches": launches, "metrics": list(METRICS)}
