"""Registers per thread and tensor-core instruction shapes of the MoE seeds' GEMM kernels, compiled for sm_90 on this
machine (no GPU needed: ``triton.compile`` for a CUDA target runs ptxas; ``cuobjdump -res-usage`` reads the cubin).

Why: the H200 runs one program per SM of q8's 8-warp GEMMs at 255 registers per thread; a kernel change that frees
registers (more resident programs) can be checked here before a device call. The Triton here may differ from the
device's (the H200 image runs 3.6): the counts are indicative, the device's own profile decides.

    python benchmarks/sm90_resources.py            # -> benchmarks/results/sm90_resources_moe.{json,md}
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from _common import (
    command_line,
    compile_sm90,
    compiled_resources,
    interpreted,
    md_table,
    seed_module,
    write_results,
)

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "operators" / "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048" / "solutions" / "seeds"
GEMM1_TYPES = ["*fp8e4nv", "*fp32", "*fp8e4nv", "*fp32", "*i32", "*i32", "*fp8e4nv", "*fp32", "i32"]
GEMM2_TYPES = ["*fp8e4nv", "*fp32", "*fp8e4nv", "*fp32", "*i32", "*bf16"]
#: (seed, kernel, GEMM, extra runtime argument types, extra constexprs)
KERNELS = [
    ("moe_grouped_fp8_q8", "_gemm1_swiglu_q8_kernel", 1, [], {}),
    ("moe_grouped_fp8_q8td", "_gemm1_swiglu_td_kernel", 1, ["*fp8e4nv", "i32"], {"E": 32, "A_SORTED": 0}),
    ("moe_grouped_fp8_q8td", "_gemm1_swiglu_td_kernel", 1, ["*fp8e4nv", "i32"], {"E": 32, "A_SORTED": 1}),
    ("moe_grouped_fp8_q8", "_gemm2_q8_kernel", 2, [], {}),
    ("moe_grouped_fp8_q8td", "_gemm2_td_kernel", 2, ["i32"], {"E": 32}),
    ("moe_grouped_fp8_q8tw", "_gemm2_tw_kernel", 2, ["i32"], {"E": 32}),
]
#: (BLOCK_M, BLOCK_N of the GEMM, warps, stages, GEMM2's K step: GEMM1's BLOCK_N); the last two, GEMM2 of the
#: short calls' point (BLOCK_M 16, GEMM1 at BLOCK_N 64), for GEMM2 kernels only
SHAPES = [(64, 128, 8, 4, 128), (64, 128, 4, 4, 128), (64, 64, 4, 3, 128), (128, 128, 8, 3, 128),
          (16, 128, 4, 4, 64), (16, 128, 8, 4, 64)]


def resources(fn: Any, types: list[str], constexprs: dict[str, Any], warps: int, stages: int) -> dict[str, Any]:
    """Compile ``fn`` for sm_90; its registers per thread, spill stores and wgmma shapes."""
    res = compiled_resources(compile_sm90(fn, types, constexprs, num_warps=warps, num_stages=stages))
    return {k: res[k] for k in ("registers", "stack_bytes", "spill_stores", "wgmma", "wgmma_instructions")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", default="sm90_resources_moe", help="results file name (benchmarks/results/)")
    args = parser.parse_args(argv)
    if interpreted("sm90_resources.py", "interpreted kernels do not compile for sm_90"):
        return 2
    rows = []
    for seed, name, gemm, extra_types, extra in KERNELS:
        fn = getattr(seed_module(SEEDS, seed), name)
        for bm, bn, warps, stages, bk2 in SHAPES:
            if gemm == 1 and bk2 != 128:
                continue
            if gemm == 1:
                types = GEMM1_TYPES + extra_types
                consts = {"H": 7168, "I": 2048, "TOPK": 8, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 128,
                          "NUM_STAGES": stages, "UPCAST": False, "QMAX": 448.0, **extra}
            else:
                types = GEMM2_TYPES + extra_types
                consts = {"H": 7168, "I": 2048, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk2, "SCALE_K": 128,
                          "NUM_STAGES": stages, "UPCAST": False, **extra}
            label = name + "".join(f" {k}={v}" for k, v in extra.items() if k != "E")
            row = {"seed": seed, "kernel": label, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 128 if gemm == 1 else bk2,
                   "warps": warps, "stages": stages,
                   **resources(fn, types, consts, warps, stages)}
            rows.append(row)
            print(row, flush=True)
    import triton

    header = ["seed", "kernel", "BLOCK_M", "BLOCK_N", "BLOCK_K", "warps", "stages", "registers", "stack bytes",
              "spill stores", "wgmma"]
    table = md_table(header, [[r["seed"], r["kernel"], r["BLOCK_M"], r["BLOCK_N"], r["BLOCK_K"], r["warps"],
                               r["stages"], r["registers"], r["stack_bytes"], r["spill_stores"],
                               " ".join(r["wgmma"]) or "-"] for r in rows])
    md = (f"# MoE GEMM kernels compiled for sm_90 (no GPU; Triton {triton.__version__})\n\n"
          f"Command: `{command_line('sm90_resources.py', argv)}`\n\n"
          "Registers per thread and spill stack from ptxas (`cuobjdump -res-usage` on the cubin), spill stores (`STL` "
          "in the SASS; PTX `st.local` until 2026-12-06, always 0), wgmma instruction shapes. The H200 image runs "
          "Triton 3.6: indicative counts.\n\n" + table)
    write_results(args.name, {"triton": triton.__version__, "rows": rows}, md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
