"""``benchmarks/moe_gemm_ws.py --compile-only``: every configuration of its kernels compiled for sm_90 on this machine
(no GPU; Triton's ptxas): registers, spill stores, shared memory, wgmma shapes, and whether the compiled kernel split
its warp groups (``setmaxnreg``). What ``tests/test_moe_gemm_ws.py`` checks without a GPU."""

from __future__ import annotations

import argparse
from typing import Any

import triton

from benchmarks._common import compiled_resources
from benchmarks.moe_gemm_ws import QMAX, TOP_K, retained_module


def compile_only(args: argparse.Namespace) -> int:
    """Compile every ``--g1`` / ``--g2`` / ``--t2`` / ``--gl1`` / ``--gl2`` configuration for sm_90 here (no GPU):
    registers, spills, wgmma shape and whether the loop was split (``setmaxnreg``)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from benchmarks import moe_gemm_ws_kernels as ws

    ptr = {"xs_ptr": "*fp8e4nv", "a_scale_ptr": "*fp32", "w_ptr": "*fp8e4nv", "w_scale_ptr": "*fp32",
           "tile_ptr": "*i32", "order_ptr": "*i32", "h_ptr": "*fp8e4nv", "hs_ptr": "*fp32", "T": "i32",
           "n_rows": "i32"}
    ptr2 = {"h_ptr": "*fp8e4nv", "hs_ptr": "*fp32", "w_ptr": "*fp8e4nv", "w_scale_ptr": "*fp32", "tile_ptr": "*i32",
            "y_ptr": "*bf16", "n_pairs": "i32"}
    tw = retained_module("q8tw")
    for gemm, fn, sig, configs in ((1, ws._gemm1_ws_kernel, ptr, args.g1), (2, ws._gemm2_ws_kernel, ptr2, args.g2),
                                   ("2 tw", tw._gemm2_tw_kernel, ptr2, args.t2)):
        for bm, bn, warps, stages, split in configs:
            consts = {"H": 7168, "I": 2048, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 128, "NUM_STAGES": stages,
                      "UPCAST": False, "E": 32, **({"WS": split} if gemm != "2 tw" else {}),
                      **({"TOPK": TOP_K, "QMAX": QMAX} if gemm == 1 else {"SCALE_K": 128})}
            label = (f"GEMM{gemm} {bm},{bn},{warps},{stages}" + (f",{int(split)}" if gemm != "2 tw" else ""))
            try:
                k = triton.compile(ASTSource(fn, {**sig, **{c: "constexpr" for c in consts}}, constexprs=consts),
                                   target=GPUTarget("cuda", 90, 32),
                                   options={"num_warps": warps, "num_stages": stages})
            except Exception as exc:  # noqa: BLE001 - a configuration the compiler refuses is a line, not the end
                print(f"{label}: error {type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:160]}")
                continue
            _print_compiled(label, k)
    if args.gl1 or args.gl2:
        from triton.experimental.gluon import language as gl
        from triton.experimental.gluon._runtime import GluonASTSource

        from benchmarks import moe_gemm1_gluon_ws_kernels as gws

        def desc(rows: int) -> str:
            layout = gl.NVMMASharedLayout.get_default_for([rows, 128], gl.float8e4nv)
            return f"tensordesc<fp8e4nv[{rows}, 128],{layout!r}>"

    for stages, cap, warps, bm in args.gl1:
        sig = {"xs_desc": desc(bm), "w_desc": desc(128), "a_scale_ptr": "*fp32", "w_scale_ptr": "*fp32",
               "tile_ptr": "*i32", "order_ptr": "*i32", "h_ptr": "*fp8e4nv", "hs_ptr": "*fp32", "T": "i32"}
        consts = {"H": 7168, "I": 2048, "TOPK": TOP_K, "BLOCK_M": bm, "BLOCK_N": 128, "BLOCK_K": 128,
                  "STAGES": stages, "QMAX": QMAX, "num_warps": warps}
        k = triton.compile(GluonASTSource(gws._gemm1_gluon_ws_kernel, {**sig, **{c: "constexpr" for c in consts}},
                                          constexprs=consts), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": warps, **({"maxnreg": cap} if cap else {})})
        _print_compiled(f"GEMM1 gluon {stages},{cap or '-'},{warps},{bm}", k)
    for stages, cap, regs in args.gl2:
        sig = {"xs_desc": desc(128), "w_desc": desc(128), "xs_scale_ptr": "*fp32", "w_scale_ptr": "*fp32",
               "tile_ptr": "*i32", "h_ptr": "*fp8e4nv", "hs_ptr": "*fp32", "n_rows": "i32"}
        consts = {"H": 7168, "I": 2048, "BLOCK_N": 128, "BLOCK_K": 128, "STAGES": stages, "QMAX": QMAX,
                  "CONSUMER_REGS": regs, "num_warps": 4}
        k = triton.compile(GluonASTSource(gws._gemm1_gluon_ws2_kernel, {**sig, **{c: "constexpr" for c in consts}},
                                          constexprs=consts), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": 4, "maxnreg": cap})
        _print_compiled(f"GEMM1 gluon2 {stages},{cap},{regs}", k)
    return 0


def _print_compiled(label: str, k: Any) -> None:
    """One line: registers, spills, shared memory, wgmma shapes, whether the warp groups were split."""
    r = compiled_resources(k)
    print(f"{label}: {r['registers']} registers, {r['spill_stores']} spill stores, {k.metadata.shared} bytes of "
          f"shared memory, wgmma {r['wgmma']}, split {'setmaxnreg' in k.asm['ptx']}")
