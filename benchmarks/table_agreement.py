"""How far two latency tables of one operator agree on the points they share.

Issue 5 asks for GDN decode on the H200, and the device tool lends an H100 as often: is a table measured on one card (or
with a sibling seed) a stand-in for another? Two ``controller_efficiency.py --mode measure`` tables of one operator,
of the same seed or of two (e.g. ``gdn_decode_cuda_hints``, whose LOAD_CS=0, STORE_CS=0 points compile to
``gdn_decode_cuda``'s instructions), on any cards. ``--where K=V`` keeps only the points with that value of a parameter
(of either table's seed; one neither has is refused); the rest are matched on the parameters both seeds have, and a key
that several points of one table share is refused (fix the others with ``--where``). Over the matched points measured
on every workload both tables share: Spearman and Kendall (tau-b) rank correlations of their full means, each table's
best point and its rank in the other, how many of the ``--top`` best of each are among the other's, and the median
B / A latency ratio. Ranks inside a table's noise (~0.1-0.2 % between repeats on the H200) are not meaningful one by one.

Usage: ``python benchmarks/table_agreement.py --tables A B [--where K=V ...] [--top 5]``
-> ``benchmarks/results/table_agreement_<A>__<B>.{md,json}`` (short table names).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, command_line, load_space_table, measured_when, results_path, usage_error
from axis_effects import point_means
from controller_efficiency import choose_seed, space_seed, table_seed
from search_bound import table_name

from kernelopt.analysis.bands import spearman
from kernelopt.cli.tasks import assignments
from kernelopt.data import DataError

SCRIPT = "table_agreement.py"
Key = tuple[tuple[str, Any], ...]


def kendall_tau_b(a: list[float], b: list[float]) -> float:
    """Kendall's tau-b (ties in either list corrected for), over every pair."""
    conc = disc = ties_a = ties_b = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            da, db = a[i] - a[j], b[i] - b[j]
            if da == 0 and db == 0:
                continue
            if da == 0:
                ties_a += 1
            elif db == 0:
                ties_b += 1
            elif (da > 0) == (db > 0):
                conc += 1
            else:
                disc += 1
    den = math.sqrt((conc + disc + ties_a) * (conc + disc + ties_b))
    return (conc - disc) / den if den else math.nan


def _space(data: dict[str, Any]) -> dict[str, list[Any]]:
    choose_seed(data["operator"], table_seed(data))
    return space_seed(data["operator"], data.get("fix") or {}).spec.space


def matched(tables: list[dict[str, Any]], where: dict[str, Any]) -> tuple[list[str], dict[Key, list[float]]]:
    """The parameters matched on, and key -> [mean in A, mean in B] for the points both measured on every shared
    workload."""
    if tables[0]["operator"] != tables[1]["operator"]:
        usage_error(SCRIPT, f"--tables: two operators ({tables[0]['operator']}, {tables[1]['operator']})")
    shared = [u for u in tables[0]["workloads"] if u in tables[1]["workloads"]]
    if not shared:
        usage_error(SCRIPT, "--tables: no workload measured in both tables")
    spaces = [_space(t) for t in tables]
    unknown = [k for k in where if all(k not in s for s in spaces)]
    if unknown:
        usage_error(SCRIPT, f"--where {' '.join(unknown)}: not a parameter of either table's seed")
    axes = [k for k in spaces[0] if k in spaces[1] and k not in where]
    by_key: list[dict[Key, float | None]] = []
    for t, space in zip(tables, spaces):
        keyed: dict[Key, float | None] = {}
        for params, mean in point_means({**t, "workloads": shared}).items():
            p = dict(params)
            if any(k in p and p[k] != v for k, v in where.items()):
                continue
            key = tuple((k, p[k]) for k in axes)
            if key in keyed:
                extra = [k for k in space if k not in axes and k not in where and len(space[k]) > 1]
                usage_error(SCRIPT, f"{t['seed']}: several points match {dict(key)}; fix {' '.join(extra)} with --where")
            keyed[key] = mean
        by_key.append(keyed)
    both = {k: [m, by_key[1][k]] for k, m in by_key[0].items() if m is not None and by_key[1].get(k) is not None}
    if len(both) < 2:
        usage_error(SCRIPT, f"--tables: {len(both)} point(s) measured in both tables; nothing to compare")
    return axes, both


def agreement(pairs: dict[Key, list[float]], top: int) -> dict[str, Any]:
    keys = list(pairs)
    a, b = [pairs[k][0] for k in keys], [pairs[k][1] for k in keys]
    best_a, best_b = min(keys, key=lambda k: pairs[k][0]), min(keys, key=lambda k: pairs[k][1])
    top_a = set(sorted(keys, key=lambda k: pairs[k][0])[:top])
    top_b = set(sorted(keys, key=lambda k: pairs[k][1])[:top])
    return {"points": len(keys), "spearman": spearman(a, b), "kendall_tau_b": kendall_tau_b(a, b),
            "best_a": dict(best_a), "best_a_rank_in_b": 1 + sum(y < pairs[best_a][1] for y in b),
            "best_b": dict(best_b), "best_b_rank_in_a": 1 + sum(x < pairs[best_b][0] for x in a),
            "top": top, "top_overlap": len(top_a & top_b),
            "median_ratio_b_over_a": statistics.median(y / x for x, y in zip(a, b)),
            "best_ms": [pairs[best_a][0], pairs[best_b][1]]}


def render(paths: list[Path], tables: list[dict[str, Any]], where: dict[str, Any], axes: list[str],
           got: dict[str, Any], command: str) -> str:
    def who(i: int) -> str:
        t = tables[i]
        return (f"`{paths[i].name}` (seed `{t.get('seed')}`, fix {t.get('fix') or {}}, {t.get('device')}, "
                f"measured {measured_when(t)})")

    def point(p: dict[str, Any]) -> str:
        return ", ".join(f"{k}={v}" for k, v in p.items())

    return "\n".join([
        f"# Agreement of `{paths[0].name}` (A) and `{paths[1].name}` (B)", "",
        f"A: {who(0)}. B: {who(1)}. Points matched on {', '.join(axes)}"
        + (f" with {point(where)}" if where else "") + f"; {got['points']} measured in both on every shared workload. "
        f"Command: `{command}`.", "",
        "| measure | value |", "|---|---:|",
        f"| Spearman rank correlation | {got['spearman']:.3f} |",
        f"| Kendall tau-b | {got['kendall_tau_b']:.3f} |",
        (f"| A's best ({point(got['best_a'])}, {got['best_ms'][0] * 1e3:.2f} us): its rank in B | "
         f"{got['best_a_rank_in_b']:g} of {got['points']} |"),
        (f"| B's best ({point(got['best_b'])}, {got['best_ms'][1] * 1e3:.2f} us): its rank in A | "
         f"{got['best_b_rank_in_a']:g} of {got['points']} |"),
        f"| of each table's {got['top']} best, among the other's {got['top']} best | {got['top_overlap']} |",
        f"| median latency ratio B / A | {got['median_ratio_b_over_a']:.4f} |", ""])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=Path, nargs=2, required=True, metavar=("A", "B"),
                    help="two --mode measure tables of controller_efficiency.py, of one operator")
    ap.add_argument("--where", nargs="*", default=[], metavar="KEY=VALUE",
                    help="keep only the points with these parameter values (of either seed)")
    ap.add_argument("--top", type=int, default=5, help="how many best points of each to compare (default 5)")
    ap.add_argument("--out", type=Path, default=RESULTS, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    if args.top < 1:
        usage_error(SCRIPT, f"--top {args.top}: expected a positive count")
    try:
        where = assignments(args.where, "--where")
    except DataError as exc:
        usage_error(SCRIPT, str(exc))
    path = results_path(f"table_agreement_{table_name(args.tables[0])}__{table_name(args.tables[1])}", args.out,
                        SCRIPT)  # checked before any work
    tables = [load_space_table(t, SCRIPT) for t in args.tables]
    axes, pairs = matched(tables, where)
    got = agreement(pairs, args.top)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"tables": [str(t) for t in args.tables], "where": where, "axes": axes, **got},
                               indent=1) + "\n")
    md = render(list(args.tables), tables, where, axes, got, command_line(SCRIPT, argv))
    path.with_suffix(".md").write_text(md)
    print(md, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
