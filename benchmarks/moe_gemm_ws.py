"""The MoE's long-call GEMMs warp-specialised by Triton (``benchmarks/moe_gemm_ws_kernels.py``) against the
retained kernels, on the same synthetic inputs of the definition's sizes.

Why. Above 4,096 tokens the retained GEMM1 runs near half the H200's FP8 rate and spends a third of its stalls at a
CTA barrier (call IA, ``moe_gemm1_gluon_h200_ia.md``); a hand-written asynchronous Gluon GEMM1 did not help. Triton
3.5+ splits a ``tl.range(..., warp_specialize=True)`` loop on Hopper into a TMA producer warp and wgmma consumer
warp groups. This script times, per ``--tokens``:

* GEMM1: the retained ``_gemm1_swiglu_td_kernel`` (activations gathered by token, 8 warps, 4 stages), then
  ``_gemm1_ws_kernel`` (activations from their copy in the tiles' row order) at each ``--g1`` configuration;
* GEMM2: the retained ``_gemm2_tw_kernel`` (4 warps, 3 stages) over the retained GEMM1's intermediate, then
  ``_gemm2_ws_kernel`` at each ``--g2`` configuration and the retained kernel itself at each ``--t2`` tile
  ``BLOCK_M,BLOCK_N,num_warps,num_stages`` (taller or wider tiles read fewer boxes from L2 per output; the
  intermediate's rows are the sorted pairs whatever the tile height).

* GEMM1 written out in Gluon with a warp-specialised TMA producer (``benchmarks/moe_gemm1_gluon_ws_kernels.py``: one
  producer warp, per-buffer ready / empty mbarriers, one or two consumer warp groups) at each ``--gl1``
  configuration ``STAGES,MAXNREG,WARPS[,BLOCK_M]``; and on 128-row tiles with two consumer warp groups each its own
  partition and its own arrival on a buffer's "empty" barrier (``_gemm1_gluon_ws2_kernel``, reading the rows' scales
  from their copy in the tiles' order) at each ``--gl2`` configuration ``STAGES,MAXNREG,CONSUMER_REGS``.

A configuration is ``BLOCK_M,BLOCK_N,num_warps,num_stages,ws`` (``ws`` 0 or 1); ``--g1`` / ``--g2`` / ``--gl1`` /
``--gl2`` with no value skip that family. Each row: median device time of one launch (CUPTI, L2 flushed), FP8
TFLOP/s over the routed rows, registers per thread, whether the compiled kernel
moved registers between warp groups (``setmaxnreg``: the split happened), and the check against the retained
kernel (GEMM1: share of equal e4m3 codes and the largest difference of the dequantised intermediates; GEMM2: the
largest difference of the rows). A configuration that fails to compile is a row with its error.

    python benchmarks/moe_gemm_ws.py --tokens 14107 901               # on a Hopper GPU
    python benchmarks/moe_gemm_ws.py --g1 --g2 --gl2 --gl1 4,-,8 2,128,4   # only the first Gluon GEMM1
    python benchmarks/moe_gemm_ws.py --compile-only                   # compile for sm_90 here, no GPU (ptxas)

Writes ``benchmarks/results/moe_gemm_ws_<device>[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import triton

from benchmarks._common import (
    add_sweep_options,
    call_timer,
    fmt,
    interpreted,
    md_table,
    sweep_attempt,
    write_sweep,
)
from benchmarks.moe_gemm1_sweep import seed_module, synthetic_inputs

TOP_K = 8
QMAX = 448.0
#: the retained long path's seed (its q8td GEMM1, q8tw GEMM2, base routing and tile table)
SEED = "moe_grouped_fp8_q8s2"
G1_DEFAULT = ["64,128,4,2,1", "64,128,4,3,1", "64,128,4,4,1", "64,128,4,3,0", "64,128,8,4,1", "64,128,8,4,0",
              "128,128,8,3,1", "128,64,4,4,1"]
#: the retained GEMM2 kernel at taller / wider tiles (fewer boxes read from L2 per output, call KH's bound)
T2_DEFAULT = ["128,128,8,3", "128,128,8,4", "64,256,8,3"]
#: the Gluon GEMM1 (``moe_gemm1_gluon_ws_kernels.py``): ring depth, register cap (128: two programs per SM)
GL1_DEFAULT = ["2,128,4", "4,-,8"]
#: the Gluon GEMM1 with two consumer partitions (``_gemm1_gluon_ws2_kernel``): ring depth, the kernel's register cap
#: (12 warps on an SM: 168) and the second consumer's registers
GL2_DEFAULT = ["4,168,240", "3,168,240"]
G2_DEFAULT = ["64,128,4,2,1", "64,128,4,3,1", "64,128,4,4,1", "64,128,4,5,1", "64,128,4,3,0", "128,128,8,3,1"]


def config(text: str) -> tuple[int, int, int, int, bool]:
    """``BLOCK_M,BLOCK_N,num_warps,num_stages,ws`` -> a tuple (argparse type: a bad one is a usage error)."""
    try:
        bm, bn, warps, stages, ws = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected BLOCK_M,BLOCK_N,num_warps,num_stages,ws (5 integers)")
    if ws not in (0, 1) or bn > 128 or 128 % bn:
        raise argparse.ArgumentTypeError(f"{text!r}: ws must be 0 or 1 and BLOCK_N divide 128 (one scale block)")
    return bm, bn, warps, stages, bool(ws)


def tile_config(text: str) -> tuple[int, int, int, int, bool]:
    """``BLOCK_M,BLOCK_N,num_warps,num_stages`` of the retained GEMM2 kernel (no split; BLOCK_N up to 256: per-column
    W2 scales above 128) -> a configuration (argparse type)."""
    try:
        bm, bn, warps, stages = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected BLOCK_M,BLOCK_N,num_warps,num_stages (4 integers)")
    if bn not in (64, 128, 256) or bm not in (64, 128):
        raise argparse.ArgumentTypeError(f"{text!r}: BLOCK_M 64 or 128, BLOCK_N 64, 128 or 256")
    return bm, bn, warps, stages, False


def gluon_config(text: str) -> tuple[int, int | None, int, int]:
    """``STAGES,MAXNREG,WARPS[,BLOCK_M]`` (``-``: no register cap; WARPS the consumers', 4 or 8; BLOCK_M 64 (default)
    or 128, with 8 warps) -> a tuple (argparse type)."""
    try:
        fields = text.split(",")
        stages, cap, warps, bm = fields if len(fields) == 4 else (*fields, "64")
        config = int(stages), None if cap == "-" else int(cap), int(warps), int(bm)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected STAGES,MAXNREG,WARPS[,BLOCK_M] (MAXNREG an integer "
                                         "or '-')")
    if config[2] not in (4, 8) or config[3] not in (64, 128) or (config[3] == 128 and config[2] != 8):
        raise argparse.ArgumentTypeError(f"{text!r}: the consumers' warps are 4 or 8, BLOCK_M 64 or 128 (with 8)")
    return config


def ws2_config(text: str) -> tuple[int, int, int]:
    """``STAGES,MAXNREG,CONSUMER_REGS`` -> a tuple (argparse type)."""
    try:
        stages, cap, regs = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected STAGES,MAXNREG,CONSUMER_REGS (3 integers)")
    return stages, cap, regs


def retained_module(name: str) -> Any:
    """A module of the retained long path's seed."""
    return seed_module(SEED, name)


def _gluon_desc(t: Any, rows: int) -> Any:
    """A TMA descriptor over the 2-D FP8 tensor ``t`` with [rows, 128] boxes (q8gl's, for the Gluon kernels)."""
    return seed_module("moe_grouped_fp8_q8gl", "gluon_gemms")._desc(t, rows)


def _split(kernel: Any) -> dict[str, Any]:
    """Registers per thread and whether the warp groups were split (``setmaxnreg`` in the PTX)."""
    ptx = kernel.asm.get("ptx", "")
    return {"registers": getattr(kernel, "n_regs", None), "split": "setmaxnreg" in ptx,
            "shared_kb": round(kernel.metadata.shared / 1024)}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("moe_gemm_ws.py: needs a Hopper GPU (warp specialisation has no interpreter); "
                         "--compile-only here")
    from benchmarks import moe_gemm_ws_kernels as ws

    td, tw, base = (retained_module(n) for n in ("q8td", "q8tw", "base"))
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    timer = call_timer("cuda", args.timer)
    rows: list[dict[str, Any]] = []
    hid, inter = 7168, 2048

    def timed(row: dict[str, Any], launch: Any, flops: float, check: Any) -> None:
        kernel = sweep_attempt(row, rows, launch)
        if kernel is None:
            return
        torch.cuda.synchronize()
        row.update(_split(kernel), **check())
        ms = sweep_attempt(row, rows, timer, launch, args.warmup, args.iters)
        if ms is None:
            return
        row.update(ms=ms, tflops=flops / (ms * 1e-3) / 1e12)
        rows.append(row)
        print(f"  {row}", file=sys.stderr)

    for t in args.tokens:
        logits, bias, x, x_s, w1, w1_s, w2, w2_s = synthetic_inputs(t, hid, inter, "cuda",
                                                                    torch.Generator().manual_seed(7))
        x_s, w1_s, w2_s = (v.float().contiguous() for v in (x_s, w1_s, w2_s))
        ids, _rw = base._route(logits, bias, 2.5)
        tables: dict[int, tuple] = {}

        def table(bm: int) -> tuple:
            if bm not in tables:
                order, tab, _pos, _bound = base._tiles(ids, 0, bm)
                # the exact grid of the retained plan (LONG_GRID="exact"): the tiles with rows, the table's first
                # entries (the ws kernels have no early return for an empty tile: the split loop cannot follow one)
                n_tiles = max(int((tab[:, 2] != 0).sum()), 1)
                used = int(tab[:n_tiles, 2].sum())
                xs = torch.zeros((t * TOP_K, hid), dtype=x.dtype, device="cuda")
                xs[:used] = x[order[:used].long() // TOP_K]   # the activations in the tiles' row order
                tables[bm] = (order, tab, n_tiles, used, xs)
            return tables[bm]

        order, tab, n_tiles, used, _xs = table(64)
        flops1, flops2 = 2.0 * used * hid * 2 * inter, 2.0 * used * inter * hid

        def gemm1_out(bn: int) -> tuple:
            return (torch.zeros(t * TOP_K, inter, dtype=torch.float8_e4m3fn, device="cuda"),
                    torch.zeros(t * TOP_K, inter // bn, dtype=torch.float32, device="cuda"))

        q_ref, qs_ref = gemm1_out(128)

        def retained1() -> Any:
            return td._gemm1_swiglu_td_kernel[(n_tiles, inter // 128)](
                x, x_s, w1, w1_s, tab, order, q_ref, qs_ref, t, x, q_ref.shape[0], H=hid, I=inter, TOPK=TOP_K,
                BLOCK_M=64, BLOCK_N=128, BLOCK_K=128, NUM_STAGES=4, UPCAST=False, QMAX=QMAX, E=w1.shape[0],
                A_SORTED=0, num_warps=8, num_stages=4)

        def dequant(q: Any, qs: Any, bn: int) -> Any:
            return q[:used].float() * qs[:used].repeat_interleave(bn, 1)

        timed({"tokens": t, "gemm": 1, "kernel": "retained td", "config": "64,128,8,4,-"}, retained1, flops1,
              lambda: {})
        deq_ref = dequant(q_ref, qs_ref, 128)

        def check_gemm1(q: Any, qs: Any, bn: int, o: Any, u: int) -> dict:
            """Against the retained GEMM1: the largest difference of the dequantised intermediates (and the share
            of equal e4m3 codes at BLOCK_N 128), when the table puts the routed pairs in the same row order."""
            if u != used or not torch.equal(o[:u], order[:used]):
                return {"check": "other row order"}
            got = dequant(q, qs, bn)
            codes = (float((q[:used].view(torch.uint8) == q_ref[:used].view(torch.uint8)).float().mean())
                     if bn == 128 else None)
            return {"max_rel_diff": float((got - deq_ref).abs().max() / deq_ref.abs().max().clamp_min(1e-30)),
                    "codes_equal": codes}

        for bm, bn, warps, stages, split in args.g1:
            order_b, tab_b, tiles_b, used_b, xs_b = table(bm)
            q, qs = gemm1_out(bn)

            def launch1(q: Any = q, qs: Any = qs, bm: int = bm, bn: int = bn, warps: int = warps,
                        stages: int = stages, split: bool = split, o: Any = order_b, tb: Any = tab_b,
                        tiles: int = tiles_b, xs: Any = xs_b) -> Any:
                return ws._gemm1_ws_kernel[(tiles, inter // bn)](
                    xs, x_s, w1, w1_s, tb, o, q, qs, t, xs.shape[0], H=hid, I=inter, TOPK=TOP_K, BLOCK_M=bm,
                    BLOCK_N=bn, BLOCK_K=128, NUM_STAGES=stages, UPCAST=False, QMAX=QMAX, E=w1.shape[0], WS=split,
                    num_warps=warps, num_stages=stages)

            timed({"tokens": t, "gemm": 1, "kernel": "ws", "config": f"{bm},{bn},{warps},{stages},{int(split)}"},
                  launch1, flops1, partial(check_gemm1, q, qs, bn, order_b, used_b))

        if args.gl1:
            from benchmarks import moe_gemm1_gluon_ws_kernels as gws

            w_desc = _gluon_desc(w1.view(-1, hid), 128)
        for stages, cap, warps, bm in args.gl1:
            order_b, tab_b, tiles_b, used_b, xs_b = table(bm)
            xs_desc = _gluon_desc(xs_b, bm)
            q, qs = gemm1_out(128)

            def launch_gl(q: Any = q, qs: Any = qs, stages: int = stages, cap: int | None = cap, warps: int = warps,
                          bm: int = bm, xs_desc: Any = xs_desc, tb: Any = tab_b, o: Any = order_b,
                          tiles: int = tiles_b) -> Any:
                return gws._gemm1_gluon_ws_kernel[(tiles, inter // 128)](
                    xs_desc, w_desc, x_s, w1_s, tb, o, q, qs, t, H=hid, I=inter, TOPK=TOP_K, BLOCK_M=bm,
                    BLOCK_N=128, BLOCK_K=128, STAGES=stages, QMAX=QMAX, num_warps=warps,
                    **({"maxnreg": cap} if cap else {}))

            timed({"tokens": t, "gemm": 1, "kernel": "gluon ws",
                   "config": f"{bm},128,{warps}+1,{stages},maxnreg {cap or '-'}"}, launch_gl, flops1,
                  partial(check_gemm1, q, qs, 128, order_b, used_b))

        if args.gl2:
            from benchmarks import moe_gemm1_gluon_ws_kernels as gws

            order_b, tab_b, tiles_b, used_b, xs_b = table(128)
            xs_desc2, w_desc2 = _gluon_desc(xs_b, 128), _gluon_desc(w1.view(-1, hid), 128)
            xs_scale = torch.zeros((hid // 128, xs_b.shape[0]), dtype=torch.float32, device="cuda")
            xs_scale[:, :used_b] = x_s[:, order_b[:used_b].long() // TOP_K]  # the rows' scales in the tiles' order
        for stages, cap, regs in args.gl2:
            q, qs = gemm1_out(128)

            def launch_gl2(q: Any = q, qs: Any = qs, stages: int = stages, cap: int = cap, regs: int = regs) -> Any:
                return gws._gemm1_gluon_ws2_kernel[(tiles_b, inter // 128)](
                    xs_desc2, w_desc2, xs_scale, w1_s, tab_b, q, qs, xs_b.shape[0], H=hid, I=inter, BLOCK_N=128,
                    BLOCK_K=128, STAGES=stages, QMAX=QMAX, CONSUMER_REGS=regs, num_warps=4, maxnreg=cap)

            timed({"tokens": t, "gemm": 1, "kernel": "gluon ws2",
                   "config": f"128,128,4+4+1,{stages},maxnreg {cap}/{regs}"}, launch_gl2, flops1,
                  partial(check_gemm1, q, qs, 128, order_b, used_b))

        y_ref = torch.zeros(t * TOP_K, hid, dtype=torch.bfloat16, device="cuda")

        def retained2() -> Any:
            return tw._gemm2_tw_kernel[(n_tiles, hid // 128)](
                q_ref, qs_ref, w2, w2_s, tab, y_ref, t * TOP_K, H=hid, I=inter, BLOCK_M=64, BLOCK_N=128,
                BLOCK_K=128, SCALE_K=128, NUM_STAGES=3, UPCAST=False, E=w2.shape[0], num_warps=4, num_stages=3)

        timed({"tokens": t, "gemm": 2, "kernel": "retained tw", "config": "64,128,4,3,-"}, retained2, flops2,
              lambda: {})
        def check2(y: Any, o: Any, u: int) -> dict:
            """Against the retained GEMM2: the largest difference of the rows and the share of equal rows, when
            the table puts the routed pairs in the same row order (the intermediate's rows are the sorted pairs,
            whatever the tile height)."""
            if u != used or not torch.equal(o[:u], order[:used]):
                return {"check": "other row order"}
            a, b = y[:used].float(), y_ref[:used].float()
            return {"max_rel_diff": float((a - b).abs().max() / b.abs().max().clamp_min(1e-30)),
                    "rows_equal": float((a == b).all(dim=1).float().mean())}

        # GEMM2 families: Triton's split (--g2, the ws kernel) and the retained kernel at other tiles (--t2)
        for family, kernel, configs in (("ws", ws._gemm2_ws_kernel, args.g2),
                                        ("retained tw", tw._gemm2_tw_kernel, args.t2)):
            for bm, bn, warps, stages, split in configs:
                order_b, tab_b, tiles_b, used_b, _xs_b = table(bm)
                y = torch.zeros_like(y_ref)
                extra = {"WS": split} if family == "ws" else {}

                def launch2(y: Any = y, bm: int = bm, bn: int = bn, warps: int = warps, stages: int = stages,
                            tb: Any = tab_b, tiles: int = tiles_b, kernel: Any = kernel, extra: dict = extra) -> Any:
                    return kernel[(tiles, hid // bn)](
                        q_ref, qs_ref, w2, w2_s, tb, y, t * TOP_K, H=hid, I=inter, BLOCK_M=bm, BLOCK_N=bn,
                        BLOCK_K=128, SCALE_K=128, NUM_STAGES=stages, UPCAST=False, E=w2.shape[0],
                        num_warps=warps, num_stages=stages, **extra)

                config = f"{bm},{bn},{warps},{stages}" + (f",{int(split)}" if family == "ws" else "")
                timed({"tokens": t, "gemm": 2, "kernel": family, "config": config}, launch2, flops2,
                      partial(check2, y, order_b, used_b))
        tables.clear()
        torch.cuda.empty_cache()
    return {"device": torch.cuda.get_device_name(), "tokens": args.tokens, "triton": triton.__version__,
            "warmup": args.warmup, "iters": args.iters, "timer": args.timer, "configs": rows}


def markdown(data: dict[str, Any], command: str) -> str:
    lines = [f"# MoE long-call GEMMs warp-specialised by Triton vs the retained kernels ({data['device']}, "
             f"Triton {data['triton']})", "", f"Command: `{command}`", "",
             ("Median device time of one launch (L2 flushed); config `BLOCK_M,BLOCK_N,warps,stages,ws`; `split`: "
              "the compiled kernel moves registers between warp groups (setmaxnreg); `diff`: largest difference "
              "against the retained kernel's output / its largest value (GEMM1: dequantised intermediates); "
              "`equal`: share of equal e4m3 codes (GEMM1) or equal rows (GEMM2)."), ""]
    rows = [[c["tokens"], c["gemm"], c["kernel"], c["config"], fmt(c.get("ms")), fmt(c.get("tflops"), ".0f"),
             c.get("registers", ""), c.get("split", ""), c.get("shared_kb", ""), fmt(c.get("max_rel_diff"), ".1e"),
             fmt(c.get("codes_equal", c.get("rows_equal")), ".4f"), c.get("check", c.get("error", ""))]
            for c in data["configs"]]
    lines.append(md_table(["tokens", "GEMM", "kernel", "config", "ms", "TFLOP/s", "regs", "split", "smem KB", "diff",
                           "equal", "note"], rows))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, nargs="+", default=[14107], help="seq_len values (default 14107)")
    for flag, parse, defaults, what in (
            ("--g1", config, G1_DEFAULT, "GEMM1 configurations BLOCK_M,BLOCK_N,num_warps,num_stages,ws"),
            ("--g2", config, G2_DEFAULT, "GEMM2 configurations BLOCK_M,BLOCK_N,num_warps,num_stages,ws"),
            ("--t2", tile_config, T2_DEFAULT, "the retained GEMM2 kernel at other tiles BLOCK_M,BLOCK_N,num_warps,"
                                              "num_stages"),
            ("--gl1", gluon_config, GL1_DEFAULT, "Gluon warp-specialised GEMM1 configurations STAGES,MAXNREG,WARPS"
                                                 "[,BLOCK_M] (MAXNREG '-': no cap)"),
            ("--gl2", ws2_config, GL2_DEFAULT, "Gluon GEMM1 with two consumer partitions on 128-row tiles: STAGES,"
                                               "MAXNREG,CONSUMER_REGS")):
        p.add_argument(flag, type=parse, nargs="*", default=[parse(c) for c in defaults],
                       help=f"{what} (none: skip the family)")
    p.add_argument("--compile-only", action="store_true", help="compile for sm_90 here (no GPU) and stop")
    add_sweep_options(p)
    args = p.parse_args(argv)
    if interpreted("moe_gemm_ws.py", "warp specialisation needs the compiler"):
        return 2
    if args.compile_only:
        from benchmarks.moe_gemm_ws_compile import compile_only

        return compile_only(args)
    write_sweep("moe_gemm_ws.py", argv, args, measure(args), markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
