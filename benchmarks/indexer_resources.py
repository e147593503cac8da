"""Registers per thread, spill stack and spill instructions of the DSA top-k indexer's one-launch kernel (seed
``dsa_indexer_hist``) compiled for sm_90 on this machine - no GPU needed (``triton.compile`` runs ptxas; Triton's
``cuobjdump`` / ``nvdisasm`` read the cubin) - at the points the retained dispatch runs and at its neighbours.

Why: the retained dispatch (``operators/dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/retained/solution.json``) runs
BN 256 / one tile per program up to 45 pages (NPAD 4,096) and BN 256 / two tiles per program above (NPAD 8,192, the
select's 16 warps: 128 registers a thread at most); the solutions README's "no spills" for a point measured in call DC
was read before spills were read from the cubin (2026-12-06). The counts follow the Triton version (the H200 image
runs 3.6): run it with the Triton that runs the kernel. A point is ``BN,BLOCKS,num_warps,HIST_BITS,NPAD``
(num_warps 0: the seed's own count for NPAD)::

    python benchmarks/indexer_resources.py                       # the default points
    python benchmarks/indexer_resources.py --points 256,2,8,12,8192

Writes ``benchmarks/results/indexer_resources_<name>.{json,md}`` (``--name``, default the Triton version).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    command_line,
    compile_sm90,
    compiled_resources,
    int_fields,
    interpreted,
    md_table,
    seed_module,
    write_results,
)

SEEDS = (Path(__file__).resolve().parents[1] / "operators" / "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
         / "solutions" / "seeds")
#: q (fp8 bytes) k (cache bytes) k scales, weights, seq_lens, block table, scores, row histograms, row counters,
#: output | max_pages, max_pos
TYPES = ["*u8", "*u8", "*fp32", "*fp32", "*i32", "*i32", "*fp32", "*i32", "*i32", "*i32", "i32", "i32"]
#: BN, BLOCKS, num_warps, HIST_BITS, NPAD; the first two: the retained dispatch's short and long specialists at their
#: largest NPAD; then call DC's not-taken 4-warp point and neighbours of the long specialist
DEFAULT_POINTS = [(256, 1, 0, 10, 4096), (256, 2, 0, 12, 8192), (128, 1, 4, 12, 4096), (256, 2, 8, 12, 8192),
                  (256, 1, 0, 12, 8192), (128, 2, 0, 12, 8192)]


def parse_point(text: str) -> tuple[int, ...]:
    """``BN,BLOCKS,num_warps,HIST_BITS,NPAD`` as five integers (an argparse type)."""
    return int_fields(text, "BN,BLOCKS,num_warps,HIST_BITS,NPAD")


def compile_point(bn: int, blocks: int, warps: int, hist_bits: int, npad: int) -> tuple[int, Any]:
    """The seed's ``_indexer_hist_kernel`` compiled for sm_90 at a point (ACC 32, 2 stages): its warps (the seed's
    own count for ``npad`` when 0) and the compiled kernel."""
    mod = seed_module(SEEDS, "dsa_indexer_hist")
    warps = warps or mod.select_warps(npad)
    consts = {"H": 64, "D": 128, "PAGE": 64, "BN": bn, "BLOCKS": blocks, "ACC": 32, "NPAD": npad, "TOPK_C": 2048,
              "HB": hist_bits}
    return warps, compile_sm90(mod._indexer_hist_kernel, TYPES, consts, num_warps=warps, num_stages=2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", nargs="+", type=parse_point, default=DEFAULT_POINTS,
                        metavar="BN,BLOCKS,WARPS,HIST_BITS,NPAD")
    parser.add_argument("--name", default=None, help="results file suffix (default: triton<version>)")
    parser.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results/)")
    args = parser.parse_args(argv)
    if interpreted("indexer_resources.py", "interpreted kernels do not compile for sm_90"):
        return 2
    import triton

    rows = []
    for bn, blocks, warps, hist_bits, npad in args.points:
        used, kernel = compile_point(bn, blocks, warps, hist_bits, npad)
        res = compiled_resources(kernel)
        rows.append({"BN": bn, "BLOCKS": blocks, "num_warps": used, "HIST_BITS": hist_bits, "NPAD": npad,
                     **{k: res[k] for k in ("registers", "stack_bytes", "spill_stores", "spill_loads")}})
        print(rows[-1], flush=True)
    name = args.name or f"triton{triton.__version__.replace('.', '')}"
    header = ["BN", "BLOCKS", "warps", "HIST_BITS", "NPAD", "registers", "stack bytes", "STL", "LDL"]
    table = md_table(header, [[r["BN"], r["BLOCKS"], r["num_warps"], r["HIST_BITS"], r["NPAD"], r["registers"],
                               r["stack_bytes"], r["spill_stores"], r["spill_loads"]] for r in rows])
    md = (f"# DSA indexer one-launch kernel compiled for sm_90 (no GPU; Triton {triton.__version__})\n\n"
          f"Command: `{command_line('indexer_resources.py', argv)}`\n\n"
          "Seed `dsa_indexer_hist`, kernel `_indexer_hist_kernel` (ACC 32, 2 stages). Registers per thread and spill "
          "stack from ptxas (`cuobjdump -res-usage` on the cubin), spill stores / loads (`STL` / `LDL` in the SASS, "
          "`nvdisasm`). NPAD: the row's padded length (4,096 up to 64 pages, 8,192 above). The device image runs "
          "Triton 3.6: indicative counts.\n\n" + table)
    write_results(f"indexer_resources_{name}", {"triton": triton.__version__, "rows": rows}, md, out_dir=args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
