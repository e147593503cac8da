"""Registers and spills of the GDN prefill state walk and output kernels, wy3h's (the walk stores every chunk's
start state, the output reads it back) against ``gdn_prefill_chunked_wy3o``'s (the walk forms the output's
inter-chunk term itself), compiled for sm_90 on this machine (no GPU needed: ``triton.compile`` runs ptxas; Triton's
``cuobjdump`` / ``nvdisasm`` read the cubin), with the bytes of scratch each design writes between the two kernels
for a call shape.

Why: wy3o's walk loads Q and runs one more [C, 128] x [128, BV] dot a chunk; on a walk at 172 registers a thread
(wy3h at C 32, BV 64, 4 warps: call QH's Nsight Compute) that may spill, which would cost more than the states it
saves. A point is ``C,BV,BV_O,num_warps_h,num_warps_o,num_stages``::

    python benchmarks/prefill_walk_resources.py                      # the long calls' two leaves, 4 and 8 walk warps
    python benchmarks/prefill_walk_resources.py --points 32,64,128,4,4,2 --tokens 8192 --seqs 57

Writes ``benchmarks/results/prefill_walk_resources_<name>.{json,md}`` (``--name``, default the Triton version).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    command_line,
    compile_sm90,
    compiled_resources,
    int_fields,
    interpreted,
    md_table,
    seed_module,
    stamp,
    write_results,
)

SEEDS = Path(__file__).resolve().parents[1] / "operators" / "gdn_prefill_qk4_v8_d128_k_last" / "solutions" / "seeds"
#: the dispatch's leaves above 1,376 tokens (dispatch/wy3hh_s2_seqs16_bv32.json: up to 16 sequences, then more), and
#: both at 8 walk warps
DEFAULT_POINTS = [(64, 32, 64, 4, 4, 2), (32, 64, 128, 4, 4, 2), (64, 32, 64, 8, 4, 2), (32, 64, 128, 8, 4, 2)]
#: per design: (seed, walk kernel, its pointer types, output kernel, its runtime types)
DESIGNS = {
    "wy3h": ("gdn_prefill_chunked_wy3h", "_h_kernel",
             ["*bf16", "*bf16", "*bf16", "*fp32", "*fp32", "*i32", "*bf16", "*bf16", "*fp32"],
             "_o_kernel", ["*bf16", "*bf16", "*bf16", "*fp32", "*bf16", "*i32", "*bf16", "fp32", "i32"]),
    "wy3o": ("gdn_prefill_chunked_wy3o", "_walk_kernel",
             ["*bf16", "*bf16", "*bf16", "*bf16", "*fp32", "*fp32", "*i32", "*fp32", "*bf16", "*fp32"],
             "_out_kernel", ["*bf16", "*bf16", "*bf16", "*fp32", "*fp32", "*i32", "*bf16", "fp32", "i32"]),
}


def parse_point(text: str) -> tuple[int, ...]:
    """``C,BV,BV_O,num_warps_h,num_warps_o,num_stages`` within the seeds' space."""
    point = int_fields(text, "C,BV,BV_O,num_warps_h,num_warps_o,num_stages")
    chunk, bv, bv_o, wh, wo, stages = point
    if (chunk not in (32, 64) or bv not in (16, 32, 64, 128) or bv_o not in (16, 32, 64, 128)
            or wh not in (2, 4, 8) or wo not in (2, 4, 8) or stages not in (1, 2)):
        raise argparse.ArgumentTypeError(f"{text!r}: C 32 or 64, BV and BV_O 16-128 (powers of two), 2, 4 or 8 warps, "
                                         "1 or 2 stages")
    return point


def compile_kernels(design: str, point: tuple[int, ...]) -> dict[str, Any]:
    """The design's walk and output kernels compiled for sm_90 at ``point`` (bf16 scratch and states, tf32, an
    initial state)."""
    seed, walk, walk_types, out, out_types = DESIGNS[design]
    module = seed_module(SEEDS, seed)
    chunk, bv, bv_o, wh, wo, stages = point
    common = {"HQK": 4, "HV": 8, "D": 128, "C": chunk, "PRECISION": "tf32", "LOW": True, "UPCAST": False}
    return {
        "walk": compile_sm90(getattr(module, walk), walk_types,
                             {**common, "BV": bv, "HAS_STATE": True, **({"LOW_H": True} if design == "wy3o" else {})},
                             num_warps=wh, num_stages=stages),
        "output": compile_sm90(getattr(module, out), out_types,
                               {**common, "BV": bv_o, **({"LOW_H": True} if design == "wy3h" else {})},
                               num_warps=wo, num_stages=stages)}


def scratch_bytes(design: str, chunk: int, tokens: int, seqs: int) -> int:
    """Bytes the walk writes for the output kernel besides V_new: wy3h's per-chunk states (bf16 [128, 128] per chunk
    slot and v-head, slots as its ``run`` allocates them), wy3o's O_inter (fp32 per token, v-head and column)."""
    if design == "wy3h":
        return (-(-tokens // chunk) + seqs) * 8 * 128 * 128 * 2
    return tokens * 8 * 128 * 4


def measure(points: list[tuple[int, ...]], tokens: int, seqs: int) -> list[dict[str, Any]]:
    rows = []
    for point in points:
        for design in DESIGNS:
            kernels = compile_kernels(design, point)
            row: dict[str, Any] = {"point": ",".join(map(str, point)), "design": design,
                                   "scratch_mb": scratch_bytes(design, point[0], tokens, seqs) / 1e6}
            for role, kernel in kernels.items():
                res = compiled_resources(kernel)
                row[role] = {k: res[k] for k in ("registers", "stack_bytes", "spill_stores", "spill_loads")}
            rows.append(row)
            print(f"  {row['point']} {design}: walk {row['walk']}, output {row['output']}", flush=True)
    return rows


def markdown(data: dict[str, Any]) -> str:
    rows = [[r["point"], r["design"], *(r[role][k] for role in ("walk", "output")
                                         for k in ("registers", "stack_bytes", "spill_stores")), f"{r['scratch_mb']:.1f}"]
            for r in data["rows"]]
    intro = (f"Command: `{data['command']}`. Compiled by Triton {data['triton']} on {data['compiled_on']} (the counts "
             "follow Triton's version, not the card). bf16 scratch and states, tf32, an initial state. Scratch: what "
             f"the walk writes for the output kernel besides V_new at {data['tokens']:,} tokens in {data['seqs']} "
             "sequences (wy3h: the per-chunk states h; wy3o: O_inter).")
    return "\n".join([
        f"# GDN prefill state walk and output kernels compiled for sm_90: wy3h against wy3o (Triton {data['triton']})",
        "", intro, "",
        md_table(["C,BV,BV_O,warps_h,warps_o,stages", "design", "walk registers", "walk stack bytes", "walk STL",
                  "output registers", "output stack bytes", "output STL", "scratch MB"], rows)]) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", nargs="+", type=parse_point, default=DEFAULT_POINTS,
                    metavar="C,BV,BV_O,WARPS_H,WARPS_O,STAGES")
    ap.add_argument("--tokens", type=int, default=8192, help="call shape for the scratch bytes (default 8,192)")
    ap.add_argument("--seqs", type=int, default=57, help="sequences in that call (default 57)")
    ap.add_argument("--name", default=None, help="results file suffix (default: the Triton version)")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    if interpreted("prefill_walk_resources.py", "interpreted kernels do not compile for sm_90"):
        raise SystemExit(2)
    if args.tokens < 1 or args.seqs < 1 or args.seqs > args.tokens:
        ap.error(f"--tokens {args.tokens} --seqs {args.seqs}: expected 1 <= seqs <= tokens")
    import triton

    where = stamp()
    data = {"command": command_line("prefill_walk_resources.py", argv), "triton": triton.__version__,
            "compiled_on": "{} ({})".format(where.get("gpu", "a machine without a GPU"), where["host"]),
            "tokens": args.tokens, "seqs": args.seqs, "rows": measure(args.points, args.tokens, args.seqs)}
    name = args.name or "triton" + triton.__version__.replace(".", "")
    path = write_results(f"prefill_walk_resources_{name}", data, markdown(data), args.out)
    print(f"wrote {path} and {path.with_suffix('.md')}", file=sys.stderr)
    return data


if __name__ == "__main__":
    main()
