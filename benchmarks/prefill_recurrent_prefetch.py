"""The token-recurrent GDN prefill kernel with its inputs prefetched 1-3 tokens ahead, against the seed itself.

The retained GDN prefill dispatch runs the seed ``gdn_prefill_recurrent`` (one token's inputs prefetched) on its
shortest band; on the H200 it takes about 0.5 us a token. This script times, in one process and on the same
inputs, the seed's own ``run`` and ``benchmarks/prefill_recurrent_prefetch_kernels.py``'s kernel at prefetch depths
1-3 over (BV, num_warps) configurations, for sequences of the contest's short lengths, and checks that every output
(the bf16 output rows and the fp32 final state) is **bit-identical** to the depth-1 kernel's of the same BV and
num_warps (same arithmetic in the same layout; only the load schedule differs), and the depth-1 kernel at the seed's
BV 8 / 4 warps to the seed's own output (the check of the copy). Other layouts reduce in another order: their
largest difference from the seed's output is reported (``diff``), not required to be zero.

    python benchmarks/prefill_recurrent_prefetch.py                      # default lengths and configurations
    python benchmarks/prefill_recurrent_prefetch.py --lengths 134:1 401:3 --configs 1,8,4 2,8,4 3,8,4

A configuration is ``DEPTH,BV,num_warps``. ``--lengths TOTAL:SEQS`` packs SEQS near-equal sequences. On a CPU
(``TRITON_INTERPRET=1``) only the plumbing and the checks run; the times mean nothing. Writes
``benchmarks/results/prefill_recurrent_prefetch_<device>[_<name>].{json,md}``.
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
    int_fields,
    md_table,
    stamp,
    sweep_attempt,
    sweep_results,
    write_sweep,
)
from benchmarks.gdn_prefill_kernel_sweep import (
    HQK,
    HV,
    D,
    _rel_diff,
    _seed_module,
    lengths_text,
    parse_lengths,
    seed_runner,
    synthetic_inputs,
    synthetic_outputs,
)

SEED = "gdn_prefill_recurrent"
SEED_LAYOUT = (8, 4)  # the seed's defaults: BV, num_warps
DEFAULT_LENGTHS = ["6:1", "16:1", "32:1", "48:1", "64:1", "134:1", "256:1", "401:1", "401:3"]
#: DEPTH, BV, num_warps; the seed's defaults are BV 8 / 4 warps
DEFAULT_CONFIGS = [(1, 8, 4), (2, 8, 4), (3, 8, 4), (1, 8, 2), (2, 8, 2), (3, 8, 2), (1, 16, 4), (2, 16, 4),
                   (3, 16, 4), (2, 4, 4), (3, 4, 4), (2, 8, 8), (1, 8, 1), (2, 8, 1), (3, 8, 1), (2, 16, 2)]


def parse_config(text: str) -> tuple[int, int, int]:
    """``DEPTH,BV,num_warps`` with DEPTH 1-3, BV a divisor of 128 no smaller than num_warps."""
    depth, bv, nw = int_fields(text, "DEPTH,BV,num_warps")
    if depth not in (1, 2, 3):
        raise argparse.ArgumentTypeError(f"{text!r}: DEPTH must be 1, 2 or 3")
    if bv < 1 or D % bv or nw not in (1, 2, 4, 8) or bv < nw:
        raise argparse.ArgumentTypeError(f"{text!r}: BV must divide {D} and be >= num_warps (1, 2, 4 or 8)")
    return depth, bv, nw


def _launch(kernels: Any, x: dict[str, Any], depth: int, bv: int, nw: int) -> tuple[Any, dict[str, Any]]:
    """``(run, outputs)`` of the prefetching kernel: ``run()`` launches once more into the same outputs."""
    n_seq = x["cu"].numel() - 1
    out = synthetic_outputs(x)

    def run() -> Any:
        return kernels.recurrent_prefetch_kernel[(n_seq * HV, D // bv)](
            x["q"], x["k"], x["v"], x["state"], x["A_log"], x["a"], x["dt_bias"], x["b"], x["cu"],
            out["output"], out["new_state"], D ** -0.5, HQK=HQK, HV=HV, D=D, BV=bv, HAS_STATE=True, DEPTH=depth,
            num_warps=nw)
    run()
    return run, out


def _identical(out: dict[str, Any], ref: dict[str, Any]) -> bool:
    """Every output bit-equal (same values, same order)."""
    return all(bool((out[k].view(-1) == ref[k].view(-1)).all()) for k in ref)


def sweep(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    import benchmarks.prefill_recurrent_prefetch_kernels as kernels

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    if dev == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        raise SystemExit("prefill_recurrent_prefetch.py: no GPU; run with TRITON_INTERPRET=1 (and few tokens)")
    seed = _seed_module(SEED)
    timer = call_timer(dev, args.timer)
    rows: list[dict[str, Any]] = []
    for text in args.lengths:
        lengths = parse_lengths(text)
        x = synthetic_inputs(lengths, dev, torch.Generator().manual_seed(7))
        base = {"lengths": text, "tokens": sum(lengths), "seqs": len(lengths)}
        seed_run, ref = seed_runner(seed, x)  # the seed's own run at its defaults
        seed_run()
        seed_ms = timer(seed_run, args.warmup, args.iters)
        rows.append({**base, "config": "seed", "ms": seed_ms, "identical": True, "vs_seed": 1.0, "diff": 0.0})
        print(f"{text}: seed {seed_ms:.4f} ms", file=sys.stderr)
        twins: dict[tuple[int, int], dict[str, Any]] = {SEED_LAYOUT: ref}  # depth-1 outputs per (BV, num_warps)
        for depth, bv, nw in args.configs:
            row = {**base, "config": f"{depth},{bv},{nw}", "DEPTH": depth, "BV": bv, "num_warps": nw}
            got = sweep_attempt(row, rows, _launch, kernels, x, depth, bv, nw)
            if got is None:
                continue
            run, out = got
            row["ms"] = timer(run, args.warmup, args.iters)
            if depth == 1 and (bv, nw) not in twins:
                twins[(bv, nw)] = {k: v.clone() for k, v in out.items()}
            twin = twins.get((bv, nw))
            if twin is None:  # the depth-1 twin of this layout, launched once
                twin = twins[(bv, nw)] = _launch(kernels, x, 1, bv, nw)[1]
            row["identical"] = _identical(out, twin)
            row["diff"] = _rel_diff(out, ref)
            row["vs_seed"] = seed_ms / row["ms"]
            rows.append(row)
            print(f"  {row['config']}: {row['ms']:.4f} ms ({row['vs_seed']:.3f}x), identical {row['identical']}",
                  file=sys.stderr)
    return {"device": torch.cuda.get_device_name() if dev == "cuda" else "cpu (Triton interpreter)",
            "timer": args.timer if dev == "cuda" else "host clock", "stamp": stamp(), "rows": rows}


def markdown(data: dict[str, Any], cmd: str) -> str:
    lines = ["# GDN prefill token-recurrent kernel: inputs prefetched 1-3 tokens ahead vs the seed",
             "", f"Device {data['device']}; timer: {TIMER_WORDS.get(data['timer'], data['timer'])}. Command: `{cmd}`.",
             "", ("Configuration `DEPTH,BV,num_warps`; `seed` is `gdn_prefill_recurrent`'s own run (BV 8, 4 warps, "
             "depth 1). *identical*: output rows and final state bit-equal to the depth-1 kernel's of the same BV and "
             "num_warps (at BV 8 / 4 warps: the seed's); *diff*: largest difference from the seed's outputs / their "
             "largest value (another layout reduces in another order)."), ""]
    body = [[r["lengths"], r["config"], fmt(r.get("ms")), fmt(r.get("vs_seed"), ".3f"),
             r.get("identical", "-"), fmt(r.get("diff"), ".1e"), r.get("error", "")] for r in data["rows"]]
    lines.append(md_table(["TOTAL:SEQS", "config", "median ms", "seed / this", "identical", "diff", "error"], body))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", nargs="+", type=lengths_text, default=DEFAULT_LENGTHS, metavar="TOTAL:SEQS")
    ap.add_argument("--configs", nargs="+", type=parse_config, default=DEFAULT_CONFIGS, metavar="DEPTH,BV,WARPS")
    add_sweep_options(ap)
    args = ap.parse_args(argv)
    sweep_results(Path(__file__).name, args)  # a bad --out / --name is one line before anything is measured
    data = sweep(args)
    write_sweep(Path(__file__).name, argv, args, data, markdown)
    bad = [r["config"] for r in data["rows"] if r.get("identical") is False]
    if bad:
        print(f"prefill_recurrent_prefetch.py: outputs differ from the depth-1 kernel's of the same layout for "
              f"{sorted(set(bad))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
