"""GEMM1 of the FP8 MoE's long calls written in Gluon, its block-scale FMAs overlapping the next wgmma, against the
retained Triton GEMM1 on the same synthetic inputs.

Why. Above 4,096 tokens the retained dispatch's GEMM1 (``_gemm1_swiglu_td_kernel`` of the seed
``moe_grouped_fp8_q8s2``: two FP8 dots per 128-wide K block, gate and up, each scaled by the rows' and the weight
block's scales into an fp32 accumulator, SwiGLU and FP8 quantisation in the epilogue) runs at ~0.55 of the H200's
measured FP8 rate (1,085 us at 14,107 tokens, H200 call CF). Triton makes a dot asynchronous only when its result
feeds the next dot as the accumulator; here every dot's result is scaled first, so the compiled loop waits for each
wgmma (``warp_group_dot_wait {pendings = 0}``) before its FMAs, and the tensor cores idle while they run.

This kernel (``_gemm1_gluon_kernel``) issues the wgmmas itself, asynchronously, in the order
``up(k)``, [wait for ``gate(k-1)``, its FMAs], ``gate(k)``, [wait for ``up(k)``, its FMAs]: one wgmma is always in
flight while the other's promotion runs. Operands come through TMA into a ring of ``STAGES`` shared-memory buffers
(mbarriers), refilled once both warp groups have passed the previous K block; the activations are read from their
copy in the tiles' row order (``xs``: the seed's ``A_SORTED=1`` permutation, timed separately here) so that each
tile's rows are one TMA box. Same tile table, program grid (tile, N block), scales, epilogue and output as the
Triton kernel; the check compares the dequantised intermediates of every routed row. GEMM2
(``_gemm2_gluon_kernel``) does the same over two column halves, against the retained ``_gemm2_tw_kernel``, both
reading the retained GEMM1's intermediate. The kernels live in the seed ``moe_grouped_fp8_q8gl``
(``gluon_kernels.py``), which runs them inside the platform's long-call plan.

    python benchmarks/moe_gemm1_gluon.py --tokens 14107            # on the GPU (Hopper, Triton with Gluon)
    python benchmarks/moe_gemm1_gluon.py --compile-only            # compile for sm_90 here, no GPU (ptxas)

Writes ``benchmarks/results/moe_gemm1_gluon_<device>[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import triton
from triton.experimental.gluon import language as gl

from benchmarks._common import (
    add_sweep_options,
    call_timer,
    compiled_resources,
    fmt,
    interpreted,
    md_table,
    sweep_attempt,
    sweep_results,
    write_sweep,
)
from benchmarks.moe_gemm1_sweep import seed_module, synthetic_inputs

TOP_K = 8
QMAX = 448.0
#: the seed holding the Gluon kernels (``gluon_kernels.py``) and the Triton ones of the retained long path
SEED = "moe_grouped_fp8_q8gl"


def _seed_module(name: str) -> Any:
    """A module of the seed."""
    return seed_module(SEED, name)


def gluon_launcher(x: Any, x_s: Any, w1: Any, w1_s: Any, table: Any, order: Any, used: int, q: Any, qs: Any,
                   t: int, n_tiles: int, bm: int, bn: int, warps: int, stages: int) -> tuple[Any, Any]:
    """``(permute, gemm1)``: the activations' copy in the tiles' row order (torch gather) and the Gluon GEMM1 over
    it; both callables take no argument."""
    import torch

    desc = _seed_module("gluon_gemms")._desc
    h, i = x.shape[1], w1.shape[1] // 2
    xs = torch.empty((max(used, 1), h), dtype=x.dtype, device=x.device)
    tokens = (order[:used].long() // TOP_K)

    def permute() -> None:
        torch.index_select(x, 0, tokens, out=xs[:used])

    permute()
    xs_desc, w_desc = desc(xs, bm), desc(w1.view(-1, h), bn)

    def gemm1() -> Any:
        return _seed_module("gluon_kernels")._gemm1_gluon_kernel[(n_tiles, i // bn)](
            xs_desc, w_desc, x_s, w1_s, table, order, q, qs, t, H=h, I=i, TOPK=TOP_K, BLOCK_M=bm, BLOCK_N=bn,
            BLOCK_K=128, STAGES=stages, QMAX=QMAX, num_warps=warps)

    return permute, gemm1


def triton_launcher(td: Any, x: Any, x_s: Any, w1: Any, w1_s: Any, table: Any, order: Any, q: Any, qs: Any,
                    t: int, n_tiles: int, bm: int, bn: int, warps: int, stages: int) -> Any:
    """The retained long calls' Triton GEMM1 (``_gemm1_swiglu_td_kernel``, activations gathered by token)."""
    h, i = x.shape[1], w1.shape[1] // 2

    def gemm1() -> Any:
        return td._gemm1_swiglu_td_kernel[(n_tiles, i // bn)](
            x, x_s, w1, w1_s, table, order, q, qs, t, x, q.shape[0], H=h, I=i, TOPK=TOP_K, BLOCK_M=bm, BLOCK_N=bn,
            BLOCK_K=128, NUM_STAGES=stages, UPCAST=False, QMAX=QMAX, E=w1.shape[0], A_SORTED=0,
            num_warps=warps, num_stages=stages)

    return gemm1


def _modules() -> tuple[Any, ...]:
    """The retained long path's seed: its ``q8td`` (Triton GEMM1), ``q8tw`` (Triton GEMM2) and ``base`` (routing,
    tile table)."""
    return tuple(_seed_module(name) for name in ("q8td", "q8tw", "base"))


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("moe_gemm1_gluon.py: needs a Hopper GPU (Gluon has no interpreter); --compile-only here")
    td, tw, base = _modules()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    t, bm, bn, hid = args.tokens, 64, 128, 7168
    logits, bias, x, x_s, w1, w1_s, w2, w2_s = synthetic_inputs(t, hid, 2048, "cuda",
                                                                torch.Generator().manual_seed(7))
    x_s, w1_s, w2_s = (v.float().contiguous() for v in (x_s, w1_s, w2_s))
    ids, _rw = base._route(logits, bias, 2.5)
    order, table, _pos, n_tiles = base._tiles(ids, 0, bm)
    used = int(table[:, 2].sum())
    i = w1.shape[1] // 2
    timer = call_timer("cuda", args.timer)
    rows: list[dict[str, Any]] = []
    flops1, flops2 = 2.0 * used * hid * 2 * i, 2.0 * used * i * hid

    def gemm1_outputs() -> tuple[Any, Any]:
        return (torch.zeros(t * TOP_K, i, dtype=torch.float8_e4m3fn, device="cuda"),
                torch.zeros(t * TOP_K, i // bn, dtype=torch.float32, device="cuda"))

    def dequant(q: Any, qs: Any) -> Any:
        return q[:used].float() * qs[:used].repeat_interleave(bn, 1)

    def timed(row: dict[str, Any], launch: Any, flops: float, extra: Any = None) -> None:
        """Launch once (compile), ``extra()`` -> check fields, then time; one row of the table either way."""
        if sweep_attempt(row, rows, launch) is None:
            return
        torch.cuda.synchronize()
        fields = extra() if extra is not None else {}
        ms = sweep_attempt(row, rows, timer, launch, args.warmup, args.iters)
        if ms is None:
            return
        row.update(ms=ms, tflops=flops / (ms * 1e-3) / 1e12, **fields)
        rows.append(row)
        print(f"  {row}", file=sys.stderr)

    # GEMM1: the retained Triton kernel, then the Gluon one at each ring depth
    q_ref, qs_ref = gemm1_outputs()
    timed({"gemm": 1, "kernel": "triton td (retained)", "warps": 8, "stages": 4},
          triton_launcher(td, x, x_s, w1, w1_s, table, order, q_ref, qs_ref, t, n_tiles, bm, bn, 8, 4), flops1)
    ref = dequant(q_ref, qs_ref)
    for stages in args.stages:
        q, qs = gemm1_outputs()
        row = {"gemm": 1, "kernel": "gluon", "warps": 8, "stages": stages}
        got = sweep_attempt(row, rows, gluon_launcher, x, x_s, w1, w1_s, table, order, used, q, qs, t, n_tiles, bm,
                            bn, 8, stages)
        if got is None:
            continue
        permute, launch = got

        def check1(q: Any = q, qs: Any = qs, permute: Any = permute) -> dict[str, Any]:
            deq = dequant(q, qs)
            return {"max_rel_diff": float((deq - ref).abs().max() / ref.abs().max().clamp_min(1e-30)),
                    "codes_equal": float((q[:used].view(torch.uint8) == q_ref[:used].view(torch.uint8)).float().mean()),
                    "permute_ms": timer(permute, args.warmup, args.iters)}

        timed(row, launch, flops1, check1)

    # GEMM2 over the Triton GEMM1's intermediate: the retained Triton kernel, then the Gluon one
    def y_out() -> Any:
        return torch.zeros(t * TOP_K, hid, dtype=torch.bfloat16, device="cuda")

    y_ref = y_out()

    def ref2() -> Any:
        return tw._gemm2_tw_kernel[(n_tiles, hid // bn)](
            q_ref, qs_ref, w2, w2_s, table, y_ref, t * TOP_K, H=hid, I=i, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=128,
            SCALE_K=128, NUM_STAGES=3, UPCAST=False, E=w2.shape[0], num_warps=4, num_stages=3)

    timed({"gemm": 2, "kernel": "triton tw (retained)", "warps": 4, "stages": 3}, ref2, flops2)
    desc = _seed_module("gluon_gemms")._desc
    h_desc, w2_desc = desc(q_ref, bm), desc(w2.view(-1, i), bn // 2)
    for stages in args.stages2:
        y = y_out()

        def launch2(y: Any = y, stages: int = stages) -> Any:
            return _seed_module("gluon_kernels")._gemm2_gluon_kernel[(n_tiles, hid // bn)](
                h_desc, w2_desc, qs_ref, w2_s, table, y, H=hid, I=i, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=128,
                STAGES=stages, num_warps=4)

        def check2(y: Any = y) -> dict[str, Any]:
            a, b = y[:used].float(), y_ref[:used].float()
            return {"max_rel_diff": float((a - b).abs().max() / b.abs().max().clamp_min(1e-30))}

        timed({"gemm": 2, "kernel": "gluon", "warps": 4, "stages": stages}, launch2, flops2, check2)
    return {"device": torch.cuda.get_device_name(), "tokens": t, "rows_routed": used, "triton": triton.__version__,
            "warmup": args.warmup, "iters": args.iters, "timer": args.timer, "configs": rows}


def _compiled_summary(k: Any, label: str) -> str:
    """Registers, spill stores, shared memory and wgmma shapes / waits of a compiled kernel, as one line."""
    r = compiled_resources(k)
    waits = [str(n) for n in r["wait_group"]]
    return (f"{label}: {r['registers'] or '?'} registers, {r['spill_stores']} spill stores, "
            f"{k.metadata.shared} bytes of shared memory, wgmma {r['wgmma']}, wait_group {waits}")


def compile_only(args: argparse.Namespace) -> int:
    """Compile both Gluon kernels for sm_90 on this machine (no GPU; ptxas) and print their resources."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    def desc(rows: int) -> str:
        return f"tensordesc<fp8e4nv[{rows}, 128],{gl.NVMMASharedLayout.get_default_for([rows, 128], gl.float8e4nv)!r}>"

    def build(fn: Any, sig: dict[str, str], consts: dict[str, Any], warps: int) -> Any:
        sig = {**sig, **{name: "constexpr" for name in consts}}
        return triton.compile(GluonASTSource(fn, sig, constexprs=consts), target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": warps})

    for stages in args.stages:
        k = build(_seed_module("gluon_kernels")._gemm1_gluon_kernel,
                  {"xs_desc": desc(64), "w_desc": desc(128), "a_scale_ptr": "*fp32", "w_scale_ptr": "*fp32",
                   "tile_ptr": "*i32", "order_ptr": "*i32", "h_ptr": "*fp8e4nv", "hs_ptr": "*fp32", "T": "i32"},
                  {"H": 7168, "I": 2048, "TOPK": TOP_K, "BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 128,
                   "STAGES": stages, "QMAX": QMAX, "num_warps": 8}, 8)
        print(_compiled_summary(k, f"GEMM1, {stages} stages, 8 warps (Triton {triton.__version__}, sm_90)"))
    for stages in args.stages2:
        k = build(_seed_module("gluon_kernels")._gemm2_gluon_kernel,
                  {"h_desc": desc(64), "w_desc": desc(64), "hs_ptr": "*fp32", "w_scale_ptr": "*fp32",
                   "tile_ptr": "*i32", "y_ptr": "*bf16"},
                  {"H": 7168, "I": 2048, "BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 128, "STAGES": stages,
                   "num_warps": 4}, 4)
        print(_compiled_summary(k, f"GEMM2, {stages} stages, 4 warps (Triton {triton.__version__}, sm_90)"))
    return 0


def markdown(data: dict[str, Any], command: str) -> str:
    title = (f"# MoE GEMM1 / GEMM2 in Gluon vs the retained Triton kernels ({data['device']}, T = {data['tokens']}, "
             f"{data['rows_routed']} routed rows, Triton {data['triton']})")
    lines = [title, "", f"Command: `{command}`", "",
             ("Median of one launch; `permute` = the activations' copy in the tiles' row order the Gluon GEMM1 "
              "reads (torch gather), not part of its figure; `diff` = largest difference of the outputs (GEMM1: "
              "dequantised intermediates) / largest value, against the retained kernel's; `codes` = share of e4m3 "
              "codes equal to the retained GEMM1's. GEMM2 reads the retained GEMM1's intermediate."), ""]
    rows = [[c["gemm"], c["kernel"], c["warps"], c["stages"], fmt(c.get("ms")), fmt(c.get("tflops"), ".0f"),
             fmt(c.get("permute_ms")), fmt(c.get("max_rel_diff"), ".1e"), fmt(c.get("codes_equal"), ".4f"),
             c.get("error", "")] for c in data["configs"]]
    lines.append(md_table(["GEMM", "kernel", "warps", "stages", "ms", "TFLOP/s", "permute ms", "diff", "codes", "error"],
                          rows))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, default=14107, help="seq_len T (default 14107, the largest workload)")
    p.add_argument("--stages", type=int, nargs="+", default=[3, 4], help="Gluon kernel's ring depths to time")
    p.add_argument("--stages2", type=int, nargs="+", default=[3, 4], help="Gluon GEMM2's ring depths to time")
    p.add_argument("--compile-only", action="store_true", help="compile for sm_90 here (no GPU) and stop")
    add_sweep_options(p)
    args = p.parse_args(argv)
    if interpreted("moe_gemm1_gluon.py", "Gluon kernels have no interpreter"):
        return 2
    if args.compile_only:
        return compile_only(args)
    sweep_results("moe_gemm1_gluon.py", args)
    write_sweep("moe_gemm1_gluon.py", argv, args, measure(args), markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
