"""Launch overhead: what each extra Triton launch inside one call costs on the official timer, and how much of
it the host-side launch path explains. The contest times a call from its first kernel's start to its last
kernel's end (CUPTI), so the host time to issue launch k+1 while the GPU idles after launch k is counted; the
profiles of the multi-kernel retained kernels read 57-96 % host gaps at small sizes (MoE at one token, the DSA
indexer and attention, `benchmarks/results/h200_session_2026-11-30f.md`, `indexer_probe/profile_*.json`).

    python benchmarks/launch_overhead.py            # GPU only
    python benchmarks/launch_overhead.py --launches 1 2 4 8 --params 4 12 24

For tiny kernels with 4, 12 and 24 parameters (pointers, ints and constexprs, like the seeds' GEMM and scoring
kernels) and K launches per call, side by side in one process:

* ``jit``: ``kernel[grid](...)`` - Triton's JIT path (argument binding, specialisation key, cache lookup);
* ``compiled``: ``kernel.warmup(...)`` once, then ``compiled[grid](...)`` - the compiled kernel's launcher only
  (valid while the arguments keep their specialisation: dtypes, 16-byte alignment, ints equal to 1);
* ``torch``: ``x.add_(1)`` K times, for scale.

Reported per (params, path, K): the official-timer span of the call (median over iterations, warm-up 10,
iterations 50, L2 flushed as the harness does) and the host microseconds per launch (1,000 back-to-back
launches, no synchronisation between them). The slope of the span over K is what one more launch costs a
call. Writes ``benchmarks/results/launch_overhead_<device>.{json,md}``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import command_line, device_label, md_table, write_results


def _kernels() -> dict[int, Any]:
    """Tiny kernels by parameter count: each program adds its ints into one output element."""
    import triton
    import triton.language as tl

    @triton.jit
    def k4(out, a, b, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out + i, (a + b).to(tl.float32), mask=i < 1)

    @triton.jit
    def k12(out, p1, p2, p3, a, b, c, d, e, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        i = tl.program_id(0) * BM + tl.arange(0, BM)
        v = tl.load(p1 + i, mask=i < 1, other=0.0) + tl.load(p2 + i, mask=i < 1, other=0.0)
        v += tl.load(p3 + i, mask=i < 1, other=0.0) + (a + b + c + d + e + BN + BK)
        tl.store(out + i, v, mask=i < 1)

    @triton.jit
    def k24(out, p1, p2, p3, p4, p5, p6, p7, a, b, c, d, e, f, g, h, i1, j,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, S: tl.constexpr, U: tl.constexpr,
            W: tl.constexpr):
        i = tl.program_id(0) * BM + tl.arange(0, BM)
        v = tl.load(p1 + i, mask=i < 1, other=0.0) + tl.load(p7 + i, mask=i < 1, other=0.0)
        v += (a + b + c + d + e + f + g + h + i1 + j + BN + BK + S + U + W).to(tl.float32)
        tl.store(out + i, v, mask=i < 1)

    return {4: k4, 12: k12, 24: k24}


def _args(n: int, torch: Any) -> tuple[list[Any], dict[str, Any]]:
    """Positional runtime arguments and constexpr keywords for the kernel with ``n`` parameters."""
    buf = [torch.zeros(64, device="cuda") for _ in range(8)]
    if n == 4:
        return [buf[0], 3, 5], {"BLOCK": 32}
    if n == 12:
        return [buf[0], buf[1], buf[2], buf[3], 3, 5, 7, 9, 11], {"BM": 32, "BN": 64, "BK": 128}
    return ([buf[0], *buf[1:8], 3, 5, 7, 9, 11, 13, 15, 17, 19, 21],
            {"BM": 32, "BN": 64, "BK": 128, "S": 3, "U": 4, "W": 8})


def _call(path: str, kern: Any, args: list[Any], consts: dict[str, Any], k: int, torch: Any):  # type: ignore[no-untyped-def]
    """A callable issuing ``k`` launches along ``path``, or the reason the path does not run here."""
    grid = (1,)
    if path == "jit":
        def fn() -> None:
            for _ in range(k):
                kern[grid](*args, **consts)
        return fn
    if path == "compiled":
        compiled = kern.warmup(*args, **consts, grid=grid)
        full = [*args, *(consts[n] for n in kern.arg_names[len(args):])]  # every parameter, signature order
        runner = compiled[(1, 1, 1)]

        def fn() -> None:
            for _ in range(k):
                runner(*full)
        return fn
    x = args[0]

    def fn() -> None:
        for _ in range(k):
            x.add_(1)
    return fn


def host_us(fn: Any, torch: Any, calls: int = 1000) -> float:
    """Host microseconds per launch over back-to-back calls (one synchronisation at the end)."""
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    per = (time.perf_counter() - t) / calls
    torch.cuda.synchronize()
    return per * 1e6


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--launches", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--params", type=int, nargs="+", default=[4, 12, 24], choices=[4, 12, 24])
    p.add_argument("--timer", default="cupti", choices=["cupti", "cuda_event"])
    p.add_argument("--name", default=None, help="result file stem (default launch_overhead_<device>)")
    a = p.parse_args(argv)
    import torch

    from kernelopt.harness.timing import time_callable

    if not torch.cuda.is_available():
        print("launch_overhead needs a CUDA GPU (it measures the host path of real launches)", file=sys.stderr)
        return 2
    kernels = _kernels()
    rows, out = [], []
    for n in a.params:
        args, consts = _args(n, torch)
        for path in ("jit", "compiled", "torch"):
            if path == "torch" and n != a.params[0]:
                continue  # one torch row is enough for scale
            spans: dict[int, float] = {}
            per_launch: dict[int, float] = {}
            error, ran = None, set()
            for k in a.launches:
                try:
                    fn = _call(path, kernels[n], args, consts, k, torch)
                    ms, timer = time_callable(fn, [], warmup=10, iterations=50, device="cuda", timer=a.timer)
                    ran.add(timer)
                    spans[k] = statistics.median(ms) * 1e3
                    per_launch[k] = host_us(fn, torch, calls=max(100, 1000 // k)) / k
                except Exception as exc:  # noqa: BLE001  a path this Triton does not support: recorded, the rest still runs
                    error = f"{type(exc).__name__}: {exc}"[:300]
                    break
            ks = sorted(spans)
            slope = ((spans[ks[-1]] - spans[ks[0]]) / (ks[-1] - ks[0])) if len(ks) > 1 else None
            out.append({"params": n, "path": path, "span_us": spans, "host_us_per_launch": per_launch,
                        "span_us_per_extra_launch": slope, "timers": sorted(ran), "error": error})
            rows.append([n if path != "torch" else "-", path,
                         " / ".join(f"{spans[k]:.1f}" for k in ks) or "-",
                         "-" if slope is None else f"{slope:.2f}",
                         " / ".join(f"{per_launch[k]:.1f}" for k in ks) or "-", error or ""])
            print(rows[-1], flush=True)
    head = ["params", "path", f"span us at K = {' / '.join(map(str, a.launches))}", "span us per extra launch",
            "host us per launch", "error"]
    md = [f"# Launch overhead on {torch.cuda.get_device_name(0)}", "",
          (f"Command: `{command_line('launch_overhead.py', argv)}`. Timer {a.timer} (official span: "
           "first kernel start to last kernel end), warm-up 10, iterations 50, L2 flushed; host microseconds per "
           "launch over back-to-back launches."), "", md_table(head, rows)]
    write_results(a.name or f"launch_overhead_{device_label()}",
                  {"launches": a.launches, "timer": a.timer, "rows": out}, "\n".join(md))
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
