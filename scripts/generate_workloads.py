"""Generate the workload files FlashInfer does not publish (DSA indexer/attention, GDN decode/prefill).

The axis values reproduce the contest distributions exactly (REFERENCE.md §1.2-§1.5, from the paper's
Appendix I tables). Rows are written in table order; UUIDs are ``uuid5`` of (seed, definition, row
index), so the output is byte-for-byte reproducible from ``SEED``. Per-row structure that the axes
do not fix (cu_seqlens splits, seq_lens, page tables, sparse-index patterns) is derived by each
operator's ``inputs.py`` from the row's UUID, not stored here.

Usage::

    python scripts/generate_workloads.py            # rewrite operators/<def>/workloads.jsonl
    python scripts/generate_workloads.py --out DIR  # write DIR/<def>/workloads.jsonl instead
    python scripts/generate_workloads.py --check    # exit 1 if the committed files differ
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import uuid
from pathlib import Path

SEED = 20260721
OPERATORS = Path(__file__).resolve().parents[1] / "operators"

INDEXER = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
ATTENTION = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
DECODE = "gdn_decode_qk4_v8_d128_k_last"
PREFILL = "gdn_prefill_qk4_v8_d128_k_last"

# REFERENCE.md §1.2 (PAPER Table 13): batch_size -> max_num_pages of each row; num_pages 11923.
INDEXER_PAGES: dict[int, list[int]] = {
    1: [1, 2, 3],
    2: [1, 2, 3, 4, 5, 6, 7, 8],
    3: [2],
    4: [1, 2, 3, 4, 16, 17, 18, 19, 30, 31, 32, 34, 35, 36, 43, 44, 45],
    6: [1, 26, 28, 32],
    7: [18, 32, 34],
    8: [1, 2, 3, 8, 9, 16, 17, 18, 19, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 43, 44, 45],
    11: [32],
    12: [82],
    14: [1, 32, 35, 40, 84, 91],
    15: [1, 18, 19, 30, 31, 32, 34, 35, 36, 38, 39, 40, 43, 44, 45, 82, 83, 84, 89, 90, 91],
    16: [33, 34, 38, 43],
    25: [30],
    26: [30],
    27: [32, 82, 91],
    29: [1, 18, 19, 30, 32, 36, 44, 45, 83, 84, 89, 91],
    30: [18, 19, 28, 29, 30, 31, 32, 33, 34, 35, 36, 43, 44, 82, 83, 89, 90, 91],
    31: [26, 43],
}
INDEXER_NUM_PAGES = 11923

# REFERENCE.md §1.3 (PAPER Table 14): num_tokens -> row count; num_pages 8462.
ATTENTION_TOKENS: dict[int, int] = {1: 1, 2: 8, 6: 3, 7: 3, 8: 8}
ATTENTION_NUM_PAGES = 8462
ATTENTION_SM_SCALE = 1.0 / math.sqrt(192.0)

# REFERENCE.md §1.4: batch_size -> row count.
DECODE_BATCHES: dict[int, int] = {1: 10, 4: 8, 8: 7, 16: 7, 32: 7, 48: 7, 64: 8}

# REFERENCE.md §1.5 (PAPER Table 16): num_seqs -> total_seq_len of each row.
PREFILL_TOKENS: dict[int, list[int]] = {
    1: [6, 12, 13, 14, 16, 16, 16, 18, 23, 24, 30, 30, 30, 31, 35, 35, 48, 49, 49, 49, 61, 67, 68, 79,
        92, 97, 97, 116, 134, 134, 525, 1377, 2107],
    2: [28, 32, 35, 35, 40, 42, 46, 76, 76, 76, 81, 85, 91, 91, 114, 114, 118, 132, 185, 248, 341, 461,
        574, 983, 983, 2040, 3271, 5709],
    3: [82, 139, 139, 202, 239, 255, 294, 661, 973, 973, 1592, 1796, 1800, 1800, 2284, 2857],
    4: [401, 832, 959, 959],
    5: [3028],
    13: [3999],
    15: [4124],
}
# ... and 16 rows of exactly 8192 tokens with these num_seqs.
PREFILL_8192_SEQS: list[int] = [20, 25, 32, 32, 34, 34, 35, 37, 38, 38, 39, 43, 43, 48, 56, 57]

EXPECTED_ROWS = {INDEXER: 128, ATTENTION: 23, DECODE: 54, PREFILL: 100}


def _axes_rows(name: str) -> list[dict[str, int]]:
    if name == INDEXER:
        return [{"batch_size": b, "max_num_pages": p, "num_pages": INDEXER_NUM_PAGES}
                for b, ps in INDEXER_PAGES.items() for p in ps]
    if name == ATTENTION:
        return [{"num_tokens": t, "num_pages": ATTENTION_NUM_PAGES}
                for t, n in ATTENTION_TOKENS.items() for _ in range(n)]
    if name == DECODE:
        return [{"batch_size": b} for b, n in DECODE_BATCHES.items() for _ in range(n)]
    if name == PREFILL:
        pairs = [(s, n) for s, ns in PREFILL_TOKENS.items() for n in ns]
        pairs += [(s, 8192) for s in PREFILL_8192_SEQS]
        return [{"total_seq_len": n, "num_seqs": s, "len_cu_seqlens": s + 1} for s, n in pairs]
    raise KeyError(f"no workload table for '{name}'")


def _scalars(name: str) -> dict[str, float]:
    if name == ATTENTION:
        return {"sm_scale": ATTENTION_SM_SCALE}
    if name in (DECODE, PREFILL):
        return {"scale": 0.0}  # the reference maps 0.0 to 1/sqrt(head_size)
    return {}


def workload_lines(name: str, seed: int = SEED, operators: Path = OPERATORS) -> list[str]:
    """JSONL lines (FlashInfer trace wrappers) for one generated definition."""
    definition = json.loads((operators / name / "definition.json").read_text())
    scalars = _scalars(name)
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, f"kernelopt/workloads/seed={seed}")
    lines = []
    for index, axes in enumerate(_axes_rows(name)):
        inputs = {k: ({"type": "scalar", "value": scalars[k]} if k in scalars else {"type": "random"})
                  for k in definition["inputs"]}
        workload = {"uuid": str(uuid.uuid5(namespace, f"{name}/{index}")), "axes": axes, "inputs": inputs}
        lines.append(json.dumps({"definition": name, "solution": None, "workload": workload,
                                 "evaluation": None}))
    if len(lines) != EXPECTED_ROWS[name]:
        raise AssertionError(f"{name}: table yields {len(lines)} rows, expected {EXPECTED_ROWS[name]}")
    return lines


def generate(out: Path = OPERATORS, seed: int = SEED, operators: Path = OPERATORS) -> list[Path]:
    """Write ``out/<def>/workloads.jsonl`` for the four generated definitions; return the paths."""
    paths = []
    for name in EXPECTED_ROWS:
        path = out / name / "workloads.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(workload_lines(name, seed, operators)) + "\n")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OPERATORS, help="output root (default operators/)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--check", action="store_true", help="compare with operators/ instead of writing")
    args = parser.parse_args(argv)
    if args.check:
        stale = [n for n in EXPECTED_ROWS
                 if (OPERATORS / n / "workloads.jsonl").read_text()
                 != "\n".join(workload_lines(n, args.seed)) + "\n"]
        for n in stale:
            print(f"stale: operators/{n}/workloads.jsonl", file=sys.stderr)
        return 1 if stale else 0
    for path in generate(args.out, args.seed):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
