"""Registers, spill stack and spill instructions of the one-launch GDN prefill kernel (seed ``gdn_prefill_onelaunch``)
compiled for sm_90 at points of its space - on this machine, no GPU needed (``triton.compile`` runs ptxas;
``cuobjdump`` / ``nvdisasm`` read the cubin) - with the source lines the spills come from.

Why: the kernel holds three roles (chunk prep, state walk, output) in one program, so its register allocation is the
largest role's; compiled here (2026-12-06, Triton 3.9) at its dispatched point (C 64, BV 64, BV_O 64, 4 warps) it
takes 255 registers and spills 976 bytes a thread, most of it in the state walk's loop (the k / W tiles' addresses);
the device image's Triton 3.6 spills 1,768 there, most in the prep and output roles (call QA,
``benchmarks/results/prefill_onelaunch_resources_triton360.md``). The counts follow the Triton version, not the card:
run it with the Triton that runs the kernel. ``--seed gdn_prefill_onelaunch_pf``: the seed whose walk loads a chunk
ahead. A point is ``C,BV,BV_O,num_warps``::

    python benchmarks/prefill_onelaunch_resources.py                     # the default points
    python benchmarks/prefill_onelaunch_resources.py --points 64,32,64,4 64,64,64,8

Writes ``benchmarks/results/prefill_onelaunch_resources_<name>.{json,md}`` (``--name``, default the Triton version).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    command_line,
    compile_sm90,
    compiled_resources,
    cubin_tool,
    int_fields,
    md_table,
    results_path,
    seed_module,
    stamp,
    write_results,
)

SEEDS = Path(__file__).resolve().parents[1] / "operators" / "gdn_prefill_qk4_v8_d128_k_last" / "solutions" / "seeds"
SEED = "gdn_prefill_onelaunch"
#: the one-launch seeds and their kernels (``gdn_prefill_onelaunch_pf``: the walk loads a chunk ahead, no WALK_FIRST)
KERNELS = {SEED: "_onelaunch_kernel", "gdn_prefill_onelaunch_pf": "_onelaunch_ahead_kernel"}
#: C, BV, BV_O, num_warps; the first is the point the one-launch dispatch runs (the seed's defaults)
DEFAULT_POINTS = [(64, 64, 64, 4), (64, 32, 64, 4), (64, 32, 32, 4), (64, 64, 64, 8), (64, 32, 64, 8),
                  (64, 128, 64, 8), (32, 64, 64, 2), (32, 32, 32, 2)]
# q k v state A_log a dt_bias b cu_seqlens | w u gamma h v_new output new_state | 4 flag / counter buffers | scalars
_RUNTIME = (["*bf16"] * 3 + ["*fp32", "*fp32", "*bf16", "*fp32", "*bf16", "*i32"]
            + ["*bf16", "*bf16", "*fp32", "*bf16", "*bf16", "*bf16", "*fp32"] + ["*i32"] * 4
            + ["fp32", "i32", "i32", "i32"])


def compile_point(chunk: int, bv: int, bv_o: int, warps: int, sleep_ns: int = 0, walk_first: bool = False,
                  seed: str = SEED) -> Any:
    """A one-launch seed's kernel (:data:`KERNELS`) compiled for sm_90 (bf16 scratch and states, tf32, an initial
    state)."""
    fn = getattr(seed_module(SEEDS, seed), KERNELS[seed])
    constexprs = {"HQK": 4, "HV": 8, "D": 128, "C": chunk, "LOG2C": chunk.bit_length() - 1, "BV": bv, "BV_O": bv_o,
                  "PRECISION": "tf32", "HAS_STATE": True, "LOW": True, "UPCAST": False, "LOW_H": True,
                  "SLEEP_NS": sleep_ns, **({"WALK_FIRST": walk_first} if seed == SEED else {})}
    return compile_sm90(fn, _RUNTIME, constexprs, num_warps=warps, num_stages=1)


def spill_lines(kernel: Any, top: int = 5) -> list[tuple[str, int]]:
    """The source lines (``file:line``) with the most spill instructions (``STL`` / ``LDL``) in the SASS, most first."""
    sass = cubin_tool(kernel, "nvdisasm", "-c", "-g")
    where, counts = "?", collections.Counter()
    for line in sass.splitlines():
        if "//##" in line and (m := re.search(r'File "([^"]+)", line (\d+)', line)):
            where = f"{Path(m.group(1)).name}:{m.group(2)}"
        elif re.search(r"\b(STL|LDL)(\.\w+)*\s", line):
            counts[where] += 1
    return counts.most_common(top)


def parse_point(text: str) -> tuple[int, int, int, int]:
    """``C,BV,BV_O,num_warps`` within the seed's space."""
    chunk, bv, bv_o, warps = int_fields(text, "C,BV,BV_O,num_warps")
    if chunk not in (32, 64) or bv not in (16, 32, 64, 128) or bv_o not in (16, 32, 64, 128) or warps not in (2, 4, 8):
        raise argparse.ArgumentTypeError(f"{text!r}: C 32 or 64, BV and BV_O 16-128 (powers of two), 2, 4 or 8 warps")
    return chunk, bv, bv_o, warps


def markdown(data: dict[str, Any]) -> str:
    rows = [[f"{r['C']},{r['BV']},{r['BV_O']},{r['num_warps']}", r["registers"], r["stack_bytes"], r["spill_stores"],
             r["spill_loads"], ", ".join(f"{w} ({n})" for w, n in r["spill_lines"]) or "-"] for r in data["rows"]]
    title = (f"# One-launch GDN prefill kernel (`{data.get('seed', SEED)}`) compiled for sm_90: registers and spills "
             f"(Triton {data['triton']})")
    return "\n".join([title,
                      "", (f"Command: `{data['command']}`. Compiled by Triton {data['triton']} on "
                           f"{data.get('compiled_on', 'this machine')} (compiling needs no GPU: the counts follow "
                           "Triton's version, not the card). Spill instructions by source line: the seed's files."), "",
                      md_table(["C,BV,BV_O,warps", "registers", "stack bytes", "STL", "LDL", "spills from (lines)"],
                               rows)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", nargs="+", type=parse_point, default=DEFAULT_POINTS, metavar="C,BV,BV_O,WARPS")
    ap.add_argument("--seed", default=SEED, choices=sorted(KERNELS), help=f"the one-launch seed (default {SEED})")
    ap.add_argument("--name", default=None, help="results file suffix (default: the Triton version)")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET", "0") == "1":
        ap.error("unset TRITON_INTERPRET (interpreted kernels do not compile for sm_90)")
    import triton

    stem = "prefill_onelaunch_resources" + ("" if args.seed == SEED else "_" + args.seed.removeprefix("gdn_prefill_"))
    name = f"{stem}_{args.name or 'triton' + triton.__version__.replace('.', '')}"
    results_path(name, args.out, "prefill_onelaunch_resources.py")  # a bad --out is one line before compiling
    rows = []
    for chunk, bv, bv_o, warps in args.points:
        kernel = compile_point(chunk, bv, bv_o, warps, seed=args.seed)
        res = compiled_resources(kernel)
        rows.append({"C": chunk, "BV": bv, "BV_O": bv_o, "num_warps": warps,
                     **{k: res[k] for k in ("registers", "stack_bytes", "spill_stores", "spill_loads")},
                     "spill_lines": spill_lines(kernel)})
        print(f"C {chunk} BV {bv} BV_O {bv_o} {warps} warps: {res['registers']} registers, {res['stack_bytes']} bytes "
              f"of stack, {res['spill_stores']} STL / {res['spill_loads']} LDL", file=sys.stderr)
    where = stamp()
    data = {"command": command_line("prefill_onelaunch_resources.py", argv), "triton": triton.__version__,
            "seed": args.seed,
            "compiled_on": "{} ({})".format(where.get("gpu", "a machine without a GPU"), where["host"]), "rows": rows}
    path = write_results(name, data, markdown(data), args.out)
    print(f"wrote {path} and {path.with_suffix('.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
