"""Measure the device ceilings the roofline model divides by, once per device (GPU only).

* copy bandwidth: ``dst.copy_(src)`` (2 x bytes moved) and ``torch.add(a, b, out=c)`` (3 x bytes) on
  1 GiB fp32 buffers — far beyond the L2 — median over timed repeats; the larger figure is kept;
* bf16 dense matmul rate: ``a @ b`` at 8192^3 (2·M·N·K FLOPs);
* fp8 (e4m3) dense matmul rate: ``torch._scaled_mm`` at 8192^3 when this torch/GPU supports it,
  else the lead ``2 x bf16`` (marked as a lead, not measured);
* fp32 CUDA-core rate: not measured (the datasheet figure is kept and labelled).

Usage::

    python benchmarks/measure_ceilings.py            # print + benchmarks/results/ceilings_<device>.json
    python benchmarks/measure_ceilings.py --write    # also replace kernelopt/analysis/ceilings/<device>.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, cuda_median_ms, device_label, stamp

CEILINGS_DIR = ROOT / "kernelopt" / "analysis" / "ceilings"
FP32_DATASHEET = {"h200": 6.7e13, "h100": 6.7e13, "b200": 8.0e13}


def copy_bandwidth(nbytes: int = 1 << 30) -> dict[str, float]:
    """Bytes/s of a device copy and of a vector add on ``nbytes`` fp32 buffers."""
    import torch

    n = nbytes // 4
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = torch.empty_like(a)
    copy_ms = cuda_median_ms(lambda: c.copy_(a))
    add_ms = cuda_median_ms(lambda: torch.add(a, b, out=c))
    return {"copy": 2 * nbytes / (copy_ms * 1e-3), "add": 3 * nbytes / (add_ms * 1e-3)}


def matmul_rate(dtype: str, size: int = 8192) -> float | None:
    """FLOP/s of a dense ``size``^3 matmul in ``dtype`` ("bf16" or "fp8"); None when unsupported."""
    import torch

    flops = 2 * size**3
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    if dtype == "bf16":
        return flops / (cuda_median_ms(lambda: a @ b) * 1e-3)
    try:
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.to(torch.float8_e4m3fn).t()  # column-major second operand, as _scaled_mm wants
        one = torch.ones((), device="cuda", dtype=torch.float32)
        torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        return flops / (cuda_median_ms(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                          out_dtype=torch.bfloat16)) * 1e-3)
    except (RuntimeError, AttributeError, TypeError) as exc:
        print(f"fp8 matmul not measurable here: {exc}", file=sys.stderr)
        return None


def measure() -> dict:
    """Measured ceilings in the ``kernelopt/analysis/ceilings/*.json`` layout."""
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("measure_ceilings.py needs a CUDA GPU")
    name = torch.cuda.get_device_name(0)
    label = device_label()
    bw = copy_bandwidth()
    bf16 = matmul_rate("bf16")
    fp8 = matmul_rate("fp8")
    fp32 = FP32_DATASHEET.get(label)
    sources = {
        "copy_bandwidth_bytes_per_s": f"measured: max of copy_ {bw['copy'] / 1e12:.3f} TB/s and vector add "
                                      f"{bw['add'] / 1e12:.3f} TB/s on 1 GiB fp32 (benchmarks/measure_ceilings.py)",
        "matmul_flops_per_s.bf16": "measured: torch.matmul bf16 8192^3 (benchmarks/measure_ceilings.py)",
        "matmul_flops_per_s.fp8": ("measured: torch._scaled_mm e4m3 8192^3 (benchmarks/measure_ceilings.py)"
                                   if fp8 else "lead, not measured: 2x the measured bf16 rate"),
        "matmul_flops_per_s.fp32": "datasheet FP32 CUDA-core rate, not measured" if fp32 else
                                   "unknown device: 1/12 of bf16 as a placeholder lead",
        "launch_latency_s": "typical CUDA kernel launch + completion floor (~5 us), not measured",
    }
    return {
        "device": name, "match": [label], "copy_bandwidth_bytes_per_s": max(bw.values()),
        "matmul_flops_per_s": {"bf16": bf16, "fp8": fp8 or 2 * bf16, "fp32": fp32 or bf16 / 12},
        "launch_latency_s": 5e-6, "sources": sources,
        "measured_by": f"benchmarks/measure_ceilings.py on {stamp().get('date')} (torch {torch.__version__})",
    }


def main(argv: list[str] | None = None) -> None:
    """Measure, print and save the ceilings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="replace kernelopt/analysis/ceilings/<device>.json")
    args = parser.parse_args(argv)
    data = measure()
    text = json.dumps(data, indent=2) + "\n"
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"ceilings_{data['match'][0]}.json").write_text(text)
    if args.write:
        (CEILINGS_DIR / f"{data['match'][0]}.json").write_text(text)


if __name__ == "__main__":
    main()
