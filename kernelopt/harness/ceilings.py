"""Measure a GPU's ceilings for the roofline model (``kernelopt.analysis.roofline``), once per device.

* copy bandwidth: ``dst.copy_(src)`` (2 x bytes moved) and ``torch.add(a, b, out=c)`` (3 x bytes) on 1 GiB fp32
  buffers - far beyond any L2 - median of timed repeats; the larger figure is kept;
* bf16 dense matmul rate: ``a @ b`` at 8192^3 (2·M·N·K FLOPs);
* fp8 (e4m3) dense matmul rate: ``torch._scaled_mm`` at 8192^3 where this torch and GPU support it, else the lead
  ``2 x bf16`` (labelled a lead, not a measurement);
* fp32 CUDA-core rate: a datasheet figure for known parts, else bf16 / 12 (labelled a placeholder).

Every number's origin is in the file's ``sources``. A campaign on a GPU with no ceilings has its executor run this
module in a child process on its first GPU lane's device (:func:`measure_in_child`; on Ray, inside a GPU actor) and
keeps the result in the ceilings cache (:func:`kernelopt.analysis.roofline.ceilings_cache_dir`), so later campaigns
on the same model read it.

Usage::

    python -m kernelopt.harness.ceilings              # print the first visible GPU's ceilings (JSON)
    python -m kernelopt.harness.ceilings --cache      # and keep them in the ceilings cache
    python -m kernelopt.harness.ceilings --out F.json # or write them to F.json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from kernelopt.analysis.roofline import Ceilings, cached_ceilings_path, save_ceilings

#: FP32 CUDA-core rates (FLOP/s) from the datasheets, by a fragment of the device name (lower case).
FP32_DATASHEET = {"h200": 6.7e13, "h100 80gb hbm3": 6.7e13, "h100 pcie": 5.1e13, "h100 nvl": 6.0e13,
                  "b200": 8.0e13, "a100": 1.95e13}
SOURCE = "python -m kernelopt.harness.ceilings"


def copy_bandwidth(nbytes: int = 1 << 30) -> dict[str, float]:
    """Bytes/s of a device copy and of a vector add on ``nbytes`` fp32 buffers (median CUDA-event times by the
    harness's own timer, warm caches: no L2 flush, the buffers are far larger than it)."""
    import torch

    from kernelopt.harness.timing import median_call_ms

    n = nbytes // 4
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = torch.empty_like(a)
    copy_ms = median_call_ms(lambda: c.copy_(a))
    add_ms = median_call_ms(lambda: torch.add(a, b, out=c))
    return {"copy": 2 * nbytes / (copy_ms * 1e-3), "add": 3 * nbytes / (add_ms * 1e-3)}


def matmul_rate(dtype: str, size: int = 8192) -> float | None:
    """FLOP/s of a dense ``size``^3 matmul in ``dtype`` ("bf16" or "fp8"); None where fp8 is unsupported."""
    import torch

    from kernelopt.harness.timing import median_call_ms

    flops = 2 * size**3
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    if dtype == "bf16":
        return flops / (median_call_ms(lambda: a @ b) * 1e-3)
    try:
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.to(torch.float8_e4m3fn).t()  # column-major second operand, as _scaled_mm wants
        one = torch.ones((), device="cuda", dtype=torch.float32)
        return flops / (median_call_ms(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                            out_dtype=torch.bfloat16)) * 1e-3)
    except (RuntimeError, AttributeError, TypeError) as exc:
        print(f"fp8 matmul not measurable here: {exc}", file=sys.stderr)
        return None


def datasheet_fp32(name: str) -> float | None:
    """The FP32 CUDA-core rate of a known part (``name`` as CUDA reports it), else None."""
    low = name.lower()
    return next((rate for key, rate in FP32_DATASHEET.items() if key in low), None)


def measure(source: str = SOURCE) -> dict[str, Any]:
    """The first visible GPU's ceilings in the ``kernelopt/analysis/ceilings/*.json`` layout (``match``: the
    device's own name, so the file applies to that model only). Raises RuntimeError without a CUDA GPU."""
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("measuring device ceilings needs a CUDA GPU (none is visible)")
    name = torch.cuda.get_device_name(0)
    bw = copy_bandwidth()
    bf16 = matmul_rate("bf16")
    assert bf16 is not None
    fp8 = matmul_rate("fp8")
    fp32 = datasheet_fp32(name)
    sources = {
        "copy_bandwidth_bytes_per_s": f"measured: max of copy_ {bw['copy'] / 1e12:.3f} TB/s and vector add "
                                      f"{bw['add'] / 1e12:.3f} TB/s on 1 GiB fp32 ({source})",
        "matmul_flops_per_s.bf16": f"measured: torch.matmul bf16 8192^3 ({source})",
        "matmul_flops_per_s.fp8": (f"measured: torch._scaled_mm e4m3 8192^3 ({source})"
                                   if fp8 else "lead, not measured: 2x the measured bf16 rate"),
        "matmul_flops_per_s.fp32": "datasheet FP32 CUDA-core rate, not measured" if fp32 else
                                   "unknown device: 1/12 of bf16 as a placeholder lead",
        "launch_latency_s": "typical CUDA kernel launch + completion floor (~5 us), not measured",
    }
    data = {
        "device": name, "match": [name.lower()], "copy_bandwidth_bytes_per_s": max(bw.values()),
        "matmul_flops_per_s": {"bf16": bf16, "fp8": fp8 or 2 * bf16, "fp32": fp32 or bf16 / 12},
        "launch_latency_s": 5e-6, "sources": sources,
        "measured_by": f"{source} on {_dt.datetime.now(_dt.UTC).isoformat(timespec='seconds')} "
                       f"(torch {torch.__version__})",
    }
    Ceilings.model_validate(data)  # the layout load_ceilings reads
    return data


def measure_in_child(env: dict[str, str], timeout_s: float) -> tuple[dict[str, Any] | None, str]:
    """Run ``python -m kernelopt.harness.ceilings`` in a child process with ``env`` over this one's (e.g. a GPU lane's
    ``CUDA_VISIBLE_DEVICES``), bounded by ``timeout_s``: ``(ceilings, "")``, or ``(None, why)`` (the child's last
    error lines, or the timeout). The calling process initialises no CUDA."""
    cmd = [sys.executable, "-m", "kernelopt.harness.ceilings"]
    try:
        proc = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return None, f"measuring the device ceilings took more than {timeout_s:.0f} s"
    except OSError as exc:
        return None, f"cannot start {' '.join(cmd)}: {exc}"
    tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
    if proc.returncode != 0:
        return None, f"{' '.join(cmd[1:])} exited {proc.returncode}: {tail or '(no output)'}"
    out = proc.stdout
    start = 0 if out.startswith("{") else out.find("\n{") + 1  # past anything a library printed first
    try:
        return json.JSONDecoder().raw_decode(out, start)[0], ""
    except json.JSONDecodeError as exc:
        return None, f"{' '.join(cmd[1:])} printed no ceilings JSON ({exc}): {proc.stdout[-200:]!r}"


def main(argv: list[str] | None = None) -> int:
    """Measure, print and (``--cache`` / ``--out``) keep the first visible GPU's ceilings; 2 without a GPU."""
    ap = argparse.ArgumentParser(prog="python -m kernelopt.harness.ceilings", description=__doc__.splitlines()[0])
    ap.add_argument("--cache", action="store_true", help="keep them in the ceilings cache (read by campaigns)")
    ap.add_argument("--out", type=Path, default=None, help="write them to this file")
    args = ap.parse_args(argv)
    try:
        data = measure()
    except RuntimeError as exc:
        print(f"kernelopt.harness.ceilings: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(data, indent=2))
    targets = ([args.out] if args.out else []) + ([cached_ceilings_path(data["device"])] if args.cache else [])
    for path in targets:
        print(f"written: {save_ceilings(data, path)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
