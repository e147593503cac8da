"""How many bisection rounds the DSA indexer's select needs per row, counted on the CPU.

The seed ``dsa_indexer_hist`` finds each row's top-2048 threshold by bisection on the order-preserving uint32 score
keys, one CTA-wide count per round, started from a histogram of the keys' top HIST_BITS bits and stopped once
exactly k live keys lie at or above the bits found (``dsa_indexer_bisect`` runs all 32 rounds). This script draws a
workload's inputs with the harness's generators (``make_inputs``, seed 0), computes every row's fp32 scores as the
reference does (dequantised keys, ``sum_h w_h * relu(q_h . k)``), and replays that search in NumPy: the rounds each
row needs for each histogram width. It measures no time (a count of the kernel's serial steps, exact for the
scores it computes; the GPU's fp8 dot may round a score differently, which moves a count by a round or so).

    python benchmarks/indexer_rounds.py                         # the largest batch at the most pages
    python benchmarks/indexer_rounds.py --workloads 15a996da --hist-bits 0 12

Writes ``benchmarks/results/indexer_rounds_cpu[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import command_line, md_table, workloads_by_prefix, write_results

IDX = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
TOPK, PAGE = 2048, 64


def score_keys(scores: np.ndarray) -> np.ndarray:
    """The seeds' ``_score_key``: order-preserving uint32 keys of fp32 scores."""
    bits = scores.astype(np.float32).view(np.uint32)
    return np.where(bits >> 31 != 0, ~bits, bits | np.uint32(0x80000000)).astype(np.uint32)


def rounds_needed(keys: np.ndarray, hist_bits: int) -> int:
    """The rounds ``dsa_indexer_hist``'s ``_finish_threshold`` runs for one row's live keys: from the threshold's
    top ``hist_bits`` bits (the histogram's suffix sums; none at 0) down one bit a round while more than k keys lie
    at or above the bits found."""
    n = len(keys)
    k = min(n, TOPK)
    if hist_bits:
        kth = np.sort(keys)[::-1][k - 1] if k else np.uint32(0xFFFFFFFF)
        thr = int(kth) >> (32 - hist_bits) << (32 - hist_bits)
        cnt = int((keys >= thr).sum())
    else:
        thr, cnt = 0, n
    rounds = 0
    for s in range(31 - hist_bits, -1, -1):
        if cnt <= k:
            break
        pivot = thr | (1 << s)
        c = int((keys >= pivot).sum())
        rounds += 1
        if c >= k:
            thr, cnt = pivot, c
    return rounds


def row_scores(inputs: dict[str, Any]) -> list[np.ndarray]:
    """Every row's fp32 scores over its ``seq_len`` positions, as the reference computes them (the harness's
    :func:`~kernelopt.harness.indexer_scores.indexer_scores` at the row's token ids)."""
    import torch

    from kernelopt.harness.indexer_scores import indexer_scores

    out = []
    for b, n in enumerate(inputs["seq_lens"].tolist()):
        pos = torch.arange(min(n, inputs["block_table"].shape[1] * PAGE))
        ids = inputs["block_table"][b, pos // PAGE].long() * PAGE + pos % PAGE
        out.append(indexer_scores(inputs["q_index_fp8"][b:b + 1], inputs["k_index_cache_fp8"],
                                  inputs["weights"][b:b + 1], ids[None], PAGE)[0].numpy())
    return out


def markdown(data: dict[str, Any]) -> str:
    head = ["workload", "batch", "pages", "HIST_BITS", "rounds per row (max)", "median", "rows needing none"]
    rows = [[r["workload"][:8], r["batch_size"], r["max_num_pages"], hb, max(c), statistics.median(c),
             sum(x == 0 for x in c)]
            for r in data["rows"] for hb, c in ((int(h), c) for h, c in r["rounds"].items())]
    return "\n".join([
        "# DSA indexer: bisection rounds per row (CPU count, no timing)", "",
        f"Command: `{data['command']}`", "",
        ("Inputs from the harness's generators (seed 0), fp32 scores as the reference computes them; HIST_BITS 0 "
         "is the early stop alone; `dsa_indexer_bisect` runs 32 rounds on every row."), "",
        md_table(head, rows)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", nargs="*", default=None,
                    help="workload UUIDs or unique prefixes (default: the largest batch at the most pages)")
    ap.add_argument("--hist-bits", nargs="*", type=int, default=[0, 8, 10, 12])
    ap.add_argument("--name", default="", help="suffix of the result files")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    if any(not 0 <= hb <= 16 for hb in args.hist_bits):
        raise SystemExit("indexer_rounds: --hist-bits takes widths from 0 to 16")
    from kernelopt.harness.inputs import make_inputs
    from kernelopt.operators import load_operator

    op = load_operator(IDX)
    wls = (workloads_by_prefix(op, args.workloads, "indexer_rounds") if args.workloads else
           [max(op.workloads, key=lambda w: (w.axes["max_num_pages"], w.axes["batch_size"]))])
    rows = []
    for wl in wls:
        scores = row_scores(make_inputs(op.definition, wl, device="cpu", seed=0))
        counts = {str(hb): [rounds_needed(score_keys(s), hb) for s in scores] for hb in args.hist_bits}
        rows.append({"workload": wl.uuid, **{k: wl.axes[k] for k in ("batch_size", "max_num_pages")},
                     "rounds": counts})
        print(f"  {wl.uuid[:8]}: {counts}", file=sys.stderr)
    data = {"command": command_line("indexer_rounds.py", argv), "rows": rows}
    path = write_results("indexer_rounds_cpu" + (f"_{args.name}" if args.name else ""), data, markdown(data),
                         args.out)
    print(f"wrote {path} and {path.with_suffix('.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
