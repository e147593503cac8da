"""GEMM1 of the FP8 MoE alone, over tile shapes and register caps: what limits the large-T band.

The retained MoE dispatch runs ``moe_grouped_fp8_q8`` above 80 tokens; Nsight Compute at 14,107 tokens (2026-12-01
call AJ) put its GEMM1 (``_gemm1_swiglu_q8_kernel``: two FP8 dots per 128-wide K step, gate and up, each promoted
into an fp32 accumulator with the per-row x per-column block scales, fused SwiGLU and FP8 quantisation) at 1.91 ms
with 254 registers per thread and 12.5 % occupancy: one 8-warp program per SM. Narrower N tiles lost end to end
(call AL). This script times GEMM1 by itself on synthetic inputs of the definition's sizes (random routing over
256 experts, this rank's 32), so many configurations fit in one short device call:

* ``BLOCK_M``, ``BLOCK_N``, ``num_warps``, ``num_stages`` as in the seed's space;
* ``maxnreg``: Triton's per-kernel register cap (``.maxnreg`` in the PTX): at 128 registers two 8-warp programs fit
  on an SM (twice the occupancy), at the price of spills, which the compiled kernel reports (``n_spills``).

For each configuration: registers and spills of the compiled kernel, median time of one launch (``--timer``:
CUPTI device time with the L2 flushed by default, or CUDA events; ``--iters`` launches after ``--warmup``), FP8
TFLOP/s over the routed rows (2 x rows x 7168 x 4096 flops) and a
check against the first configuration with the same BLOCK_N (the dequantised intermediate ``q x scale`` of every
routed row; a register cap must not change a bit). Routing and the tile table are built once per BLOCK_M with the
seed's own kernels. On a CPU (``TRITON_INTERPRET=1``, small ``--hidden`` / ``--inter``) only the plumbing and the
check run; times are meaningless and ``maxnreg`` is dropped (the interpreter has no registers).

    python benchmarks/moe_gemm1_sweep.py --tokens 14107                     # the default grid, on the GPU
    python benchmarks/moe_gemm1_sweep.py --tokens 14107 --configs 64,128,8,3,- 64,128,8,3,128 128,128,8,3,168

A configuration is ``BLOCK_M,BLOCK_N,num_warps,num_stages,maxnreg`` (``-``: no cap). Writes
``benchmarks/results/moe_gemm1_sweep_<device>[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TIMER_WORDS,
    add_sweep_options,
    call_timer,
    fmt,
    md_table,
    sweep_attempt,
    sweep_results,
    write_sweep,
)
from benchmarks._common import seed_module as _common_seed_module

MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
SEEDS = Path(__file__).resolve().parents[1] / "operators" / MOE / "solutions" / "seeds"
#: BLOCK_M, BLOCK_N, num_warps, num_stages, maxnreg (None: no cap); the first is the retained large-band point
DEFAULT_CONFIGS = [
    (64, 128, 8, 3, None), (64, 128, 8, 4, None), (64, 128, 8, 3, 168), (64, 128, 8, 3, 128),
    (64, 128, 8, 4, 128), (128, 128, 8, 3, None), (128, 128, 8, 3, 168), (64, 64, 4, 3, None),
    (64, 64, 4, 3, 128), (128, 64, 8, 3, None), (64, 128, 4, 3, None),
]


def parse_config(text: str) -> tuple[int, int, int, int, int | None]:
    """``BLOCK_M,BLOCK_N,num_warps,num_stages,maxnreg`` (maxnreg ``-`` for none)."""
    parts = text.split(",")
    if len(parts) != 5:
        raise argparse.ArgumentTypeError(f"{text!r}: expected BLOCK_M,BLOCK_N,num_warps,num_stages,maxnreg")
    try:
        bm, bn, nw, ns = (int(p) for p in parts[:4])
        cap = None if parts[4] in ("-", "none", "") else int(parts[4])
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: integers expected (maxnreg may be '-')") from None
    if 128 % bn or bm < 16 or bm & (bm - 1):
        raise argparse.ArgumentTypeError(f"{text!r}: BLOCK_N must divide 128, BLOCK_M a power of two >= 16")
    return bm, bn, nw, ns, cap


def synthetic_inputs(t: int, h: int, i: int, dev: str, gen: Any) -> list:
    """Routing logits and bias, FP8 activations and weights with their block scales, at any H / I that are
    multiples of 128 (the definition's: 7168 / 2048): ``[logits, bias, x, x_scale, w13, w13_scale, w2,
    w2_scale]``."""
    import torch

    f8 = torch.float8_e4m3fn
    logits = (torch.randn(t, 256, generator=gen) * 1.5).float()
    bias = (torch.randn(256, generator=gen) * 0.01).to(torch.bfloat16)
    x = (torch.randn(t, h, generator=gen) * 2).to(f8)
    x_s = torch.rand(h // 128, t, generator=gen) * 0.02 + 0.005
    w1 = (torch.randn(32, 2 * i, h, generator=gen) * 2).to(f8)
    w1_s = torch.rand(32, 2 * i // 128, h // 128, generator=gen) * 0.02 + 0.005
    w2 = (torch.randn(32, h, i, generator=gen) * 2).to(f8)
    w2_s = torch.rand(32, h // 128, i // 128, generator=gen) * 0.02 + 0.005
    return [v.to(dev) for v in (logits, bias, x, x_s, w1, w1_s, w2, w2_s)]


def seed_module(seed: str, name: str) -> Any:
    """Module ``name`` of the MoE seed ``seed`` (a seed folder imports as a package: ``from .base``)."""
    return _common_seed_module(SEEDS, seed, name)


def _seed_modules() -> tuple[Any, Any]:
    """The q8 seed's ``kernel`` and ``base`` modules."""
    return seed_module("moe_grouped_fp8_q8", "kernel"), seed_module("moe_grouped_fp8_q8", "base")


def _first_then_timed(launch: Any, timer: Any, args: argparse.Namespace) -> tuple[Any, float]:
    """``(compiled kernel of the first launch, median ms of the timed ones)``."""
    return launch(), timer(launch, args.warmup, args.iters)


def sweep(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    interpret = os.environ.get("TRITON_INTERPRET") == "1"
    if dev == "cpu" and not interpret:
        raise SystemExit("moe_gemm1_sweep.py: no GPU; run with TRITON_INTERPRET=1 (and small --hidden / --inter)")
    mod, base = _seed_modules()
    h, i, t = args.hidden, args.inter, args.tokens
    logits, bias, x, x_s, w1, w1_s, _w2, _w2_s = synthetic_inputs(t, h, i, dev, torch.Generator().manual_seed(7))
    x_s = x_s.float().contiguous()
    ids, _rw = base._route(logits, bias, 2.5)
    timer = call_timer(dev, args.timer)
    tiles: dict[int, tuple] = {}
    first: dict[int, torch.Tensor] = {}
    rows: list[dict[str, Any]] = []
    for bm, bn, nw, ns, cap in args.configs:
        if bm not in tiles:
            tiles[bm] = base._tiles(ids, args.offset, bm)
        order, table, _pos, n_tiles = tiles[bm]
        used = int(table[:, 2].sum())
        q = torch.zeros(t * 8, i, dtype=torch.float8_e4m3fn, device=dev)
        qs = torch.zeros(t * 8, i // bn, dtype=torch.float32, device=dev)
        opts: dict[str, Any] = {"num_warps": nw, "num_stages": ns}
        if cap is not None and not interpret:
            opts["maxnreg"] = cap

        def launch() -> Any:
            return mod._gemm1_swiglu_q8_kernel[(n_tiles, i // bn)](
                x, x_s, w1, w1_s, table, order, q, qs, t, H=h, I=i, TOPK=8, BLOCK_M=bm, BLOCK_N=bn,
                BLOCK_K=128, NUM_STAGES=ns, UPCAST=interpret, QMAX=448.0, **opts)

        row: dict[str, Any] = {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": nw, "num_stages": ns, "maxnreg": cap,
                               "rows": used}
        got = sweep_attempt(row, rows, _first_then_timed, launch, timer, args)
        if got is None:
            continue
        compiled, ms = got
        # rows in sorted (expert) order: the same for every BLOCK_M (tiles split each expert's segment)
        deq = q[:used].float() * qs[:used].repeat_interleave(bn, 1)
        ref = first.setdefault(bn, deq)
        row.update(ms=ms, tflops=2.0 * used * h * 2 * i / (ms * 1e-3) / 1e12,
                   n_regs=getattr(compiled, "n_regs", None), n_spills=getattr(compiled, "n_spills", None),
                   same_as_first=bool(torch.equal(deq, ref)),
                   max_rel_diff=float((deq - ref).abs().max() / ref.abs().max().clamp_min(1e-30)))
        rows.append(row)
        print(f"  BLOCK_M {bm} BLOCK_N {bn} warps {nw} stages {ns} maxnreg {cap}: {ms:.4f} ms, "
              f"{row['tflops']:.1f} TFLOP/s, regs {row['n_regs']} spills {row['n_spills']}", file=sys.stderr)
    return {"device": dev, "tokens": t, "hidden": h, "inter": i, "local_expert_offset": args.offset,
            "warmup": args.warmup, "iters": args.iters, "timer": args.timer, "configs": rows}


def markdown(data: dict[str, Any], command: str) -> str:
    lines = [f"# MoE GEMM1 alone ({data['device']}, T = {data['tokens']}, H {data['hidden']}, I {data['inter']})", "",
             f"Command: `{command}`", "",
             f"Median of one `_gemm1_swiglu_q8_kernel` launch ({TIMER_WORDS[data.get('timer', 'cuda_event')]}), "
             "synthetic inputs; "
             "`same` = the dequantised intermediate equals, bit for bit, the first configuration's with the same "
             "BLOCK_N (`diff`: largest difference / largest value; a register cap must give 0, another tile shape "
             "may round differently).", ""]
    rows = [[c["BLOCK_M"], c["BLOCK_N"], c["num_warps"], c["num_stages"], c["maxnreg"] or "-",
             c.get("n_regs", "-"), c.get("n_spills", "-"), fmt(c.get("ms")), fmt(c.get("tflops"), ".1f"),
             c.get("same_as_first", "-"), fmt(c.get("max_rel_diff"), ".1e"), c.get("error", "")]
            for c in data["configs"]]
    lines.append(md_table(["BLOCK_M", "BLOCK_N", "warps", "stages", "maxnreg", "regs", "spills", "ms", "TFLOP/s",
                           "same", "diff", "error"], rows))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, default=14107, help="seq_len T (default 14107, the largest workload)")
    p.add_argument("--hidden", type=int, default=7168)
    p.add_argument("--inter", type=int, default=2048)
    p.add_argument("--offset", type=int, default=0, help="local_expert_offset (this rank's first expert)")
    p.add_argument("--configs", nargs="+", type=parse_config, default=DEFAULT_CONFIGS,
                   metavar="BM,BN,WARPS,STAGES,MAXNREG")
    add_sweep_options(p)
    args = p.parse_args(argv)
    sweep_results("moe_gemm1_sweep.py", args)
    if args.hidden % 128 or args.inter % 128 or args.tokens < 1:
        p.error("--hidden and --inter must be multiples of 128, --tokens >= 1")
    write_sweep("moe_gemm1_sweep.py", argv, args, sweep(args), markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
