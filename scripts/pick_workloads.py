"""Workload uuids picked from an operator's ``operators/<OP>/workloads.jsonl`` for the device session scripts
(``scripts/gpu_env.sh``'s ``axis_band``, ``every_nth`` and ``prefill_points``), printed on one line. Standard library
only: it runs on the device machine before anything is installed.

    python3 scripts/pick_workloads.py band OP AXIS LO HI        # LO <= AXIS < HI, comma-separated
    python3 scripts/pick_workloads.py every-nth OP AXIS N       # every Nth ordered by AXIS, space-separated
    python3 scripts/pick_workloads.py points OP AXIS,AXIS V:V...  # those axis values, comma-separated
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def workloads(op: str) -> list[dict]:
    """OP's workloads in file order (each line's ``workload`` object)."""
    path = REPO / "operators" / op / "workloads.jsonl"
    if not path.is_file():
        print(f"pick_workloads: no workload file for operator {op!r} ({path})", file=sys.stderr)
        raise SystemExit(2)
    return [json.loads(line)["workload"] for line in path.read_text().splitlines() if line.strip()]


def band(ws: list[dict], axis: str, lo: int, hi: int) -> list[str]:
    """The uuids of the workloads with ``lo <= axes[axis] < hi``, in file order."""
    return [w["uuid"] for w in ws if lo <= w["axes"][axis] < hi]


def every_nth(ws: list[dict], axis: str, n: int) -> list[str]:
    """Every ``n``-th uuid from the first, the workloads ordered by ``axis`` (then the other axes, then uuid): a
    spread over the sizes."""
    ordered = sorted(ws, key=lambda w: (w["axes"][axis], sorted(w["axes"].items()), w["uuid"]))
    return [w["uuid"] for w in ordered[::n]]


def points(ws: list[dict], axes: list[str], values: list[tuple[int, ...]]) -> list[str]:
    """The uuids of the workloads whose ``axes`` take one of the ``values`` tuples, in file order."""
    want = set(values)
    return [w["uuid"] for w in ws if tuple(w["axes"][a] for a in axes) in want]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("band")
    p.add_argument("op"), p.add_argument("axis"), p.add_argument("lo", type=int), p.add_argument("hi", type=int)
    p = sub.add_parser("every-nth")
    p.add_argument("op"), p.add_argument("axis"), p.add_argument("n", type=int)
    p = sub.add_parser("points")
    p.add_argument("op"), p.add_argument("axes", help="comma-separated axis names, e.g. total_seq_len,num_seqs")
    p.add_argument("values", nargs="+", help="colon-separated integers per point, e.g. 401:4")
    args = parser.parse_args(argv)
    ws = workloads(args.op)
    if args.cmd == "band":
        print(",".join(band(ws, args.axis, args.lo, args.hi)))
    elif args.cmd == "every-nth":
        if args.n < 1:
            parser.error(f"every-nth: N={args.n} must be >= 1")
        print(" ".join(every_nth(ws, args.axis, args.n)))
    else:
        axes = args.axes.split(",")
        try:
            values = [tuple(int(x) for x in v.split(":")) for v in args.values]
        except ValueError:
            parser.error(f"points: values must be colon-separated integers, got {args.values}")
        if any(len(v) != len(axes) for v in values):
            parser.error(f"points: each value needs {len(axes)} numbers ({args.axes}), got {args.values}")
        print(",".join(points(ws, axes, values)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
