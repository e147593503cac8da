"""How soon a band dispatch of the evidence controller's own candidates could reach random search's final best.

Issue 5's metric counts the distinct candidates a controller gates until one of them (a single point or a band
dispatch the platform composes) has a full mean latency at or below random search's final best. On the GDN decode
table (192 points, 2026-12-03 call DV) the evidence controller needed 0.85-1.0 of random's count (0.58 / 0.56 at 48
/ 64 since 2026-12-04c); a trace of seed 1 at budget 48 (2026-12-04) shows why a dispatch matters there: its first
dispatch (candidate 6) is 7.47 us, its second (candidate 33) 7.24 us, below every single point of the space (best
7.36 us). This replay asks how early a dispatch *could* have done it: after each of the controller's first ``k``
gated candidates, the best composite of the single points among them (the gated candidates' measured table rows, all
workloads):

* ``per_workload``: every workload routed to its own best point (no band constraint: a bound no dispatch beats);
* ``two_bands``: one edge along ``--axis`` (workloads sorted by it), the best point on each side (what the
  controller's ``dispatch`` direction composes most often).

The same two composites of random search's own points (``random_per_workload``, ``random_two_bands``, added
2026-12-07) ask the converse: would composing alone, along random's path, get there sooner than the controller?

``needed`` is then ``k + 1`` (the composite is one more candidate) at the first ``k`` whose composite reaches
random's final best; the ratio to random's count is issue 5's (`controller_efficiency.censored_ratio`: not reached
counts as budget + 1), per seed, median over seeds. The composite needs the
specialists' full-workload latencies, which the controller only has for the candidates it swept: so this is a bound
on what re-composing from every gated candidate could give, not a controller. Table mode only (no GPU).

    python benchmarks/composite_bound.py --table benchmarks/results/controller_space_gdn_decode_cuda_full_h200.json \\
        --budget 48 --seeds 20

Writes ``benchmarks/results/composite_bound_<table>_b<budget>.{json,md}`` (``--out`` for another folder).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import controller_efficiency as ce
from _common import RESULTS, command_line, results_path, stamp
from search_bound import reaches, table_name

ARMS = ("controller", "per_workload", "two_bands", "random_per_workload", "random_two_bands")


def composites(rows: list[dict[str, float]], order: list[str]) -> dict[str, float]:
    """The ``per_workload`` and ``two_bands`` composite means of the single points ``rows`` (per-workload ms) over
    the workloads ``order`` (sorted along the band axis)."""
    per = statistics.fmean(min(r[w] for r in rows) for w in order)
    n = len(order)
    best_two = min(statistics.fmean(r[w] for w in order) for r in rows)  # no edge: the best single point
    for edge in range(1, n):
        low = min(sum(r[w] for w in order[:edge]) for r in rows)
        high = min(sum(r[w] for w in order[edge:]) for r in rows)
        best_two = min(best_two, (low + high) / n)
    return {"per_workload": per, "two_bands": best_two}


def composite_needed(sols: list[Any], ev: Any, order: list[str], target: float) -> dict[str, int | None]:
    """``per_workload_needed`` / ``two_bands_needed``: the 1-based count at which a composite of the single points
    among ``sols`` (in order; a dispatch is skipped) first reaches ``target`` - the reaching point itself when it
    does alone, else one more candidate (the composite); ``None`` when never."""
    got: dict[str, int | None] = {"per_workload_needed": None, "two_bands_needed": None}
    singles: list[dict[str, float]] = []
    for k, sol in enumerate(sols, 1):
        if sol.hash() not in ev.table:  # a dispatch the controller composed: not a single point
            continue
        singles.append(ev.evaluate(sol, order, 0))
        for kind, ms in composites(singles, order).items():
            if got[f"{kind}_needed"] is None and reaches(ms, target):
                got[f"{kind}_needed"] = k if reaches(ev.true_mean(sol), target) else k + 1
    return got


def replay(table: Path, budget: int, seeds: int, axis: str | None) -> dict[str, Any]:
    """The per-seed counts (random, controller, both composites) and their median ratios to random's; ``axis``
    ``None``: the first workload axis that varies over the table's workloads."""
    ev = ce.TableEval(table)
    op = ev.op.name
    if axis is None:
        axis = next((a for a in ev.op.workloads[0].axes if len({w.axes[a] for w in ev.op.workloads}) > 1), None)
    wls = sorted(ev.op.workloads, key=lambda w: (w.axes.get(axis, 0) if axis else 0, w.uuid))
    order = [w.uuid for w in wls]
    rows = []
    for seed in range(seeds):
        start = ce.start_point(op, seed, ev.fix or None)
        chosen, _ = ce.run_controller(op, ev, budget, seed, True, None, start, ev.fix or None)
        randoms, target, random_needed = ce.random_arm(op, ev, budget, seed, ev.fix or None)
        row: dict[str, Any] = {"seed": seed, "random_final_best_ms": target, "random_needed": random_needed,
                               "controller_needed": ce.needed(chosen, ev, target)}
        row.update(composite_needed(chosen, ev, order, target))
        row.update({f"random_{k}": v for k, v in composite_needed(randoms, ev, order, target).items()})
        rows.append(row)

    def ratio(key: str) -> float:
        return statistics.median(ce.censored_ratio(r[key], r["random_needed"], budget) for r in rows)

    return {"table": str(table), "operator": op, "budget": budget, "seeds": seeds, "axis": axis, "stamp": stamp(),
            "rows": rows, "median_ratio": {k: ratio(f"{k}_needed")
                                           for k in ARMS}}


def markdown(data: dict[str, Any], command: str) -> str:
    m = data["median_ratio"]
    lines = [f"# Composite bound: {table_name(data['table'])}, budget {data['budget']}, {data['seeds']} seeds", "",
             f"Command: `{command}`", "",
             ("Candidates until random search's final best is reached, over random's own count (median over seeds; "
             "not reached: budget + 1): the evidence controller as it runs, and a band dispatch of its gated single "
             "points re-composed after every candidate (`per_workload`: each workload to its best point, a bound; "
             f"`two_bands`: one edge along `{data['axis']}`); `random_*`: the same composites of random search's own "
             "points (does composing alone, without the controller's path, get there sooner?). Target 1/3."), "",
             (f"- controller: **{m['controller']:.2f}**; per_workload composite: **{m['per_workload']:.2f}**; "
             f"two_bands composite: **{m['two_bands']:.2f}**"),
             (f"- random search's points composed: per_workload **{m['random_per_workload']:.2f}**, two_bands "
              f"**{m['random_two_bands']:.2f}**"), "",
             ("| seed | random final best ms | random | controller | per_workload | two_bands | random per_workload "
              "| random two_bands |"),
             "|---|---|---|---|---|---|---|---|"]
    for r in data["rows"]:
        lines.append(f"| {r['seed']} | {r['random_final_best_ms']:.6f} | {r['random_needed']} | "
                     f"{r['controller_needed']} | {r['per_workload_needed']} | {r['two_bands_needed']} | "
                     f"{r['random_per_workload_needed']} | {r['random_two_bands_needed']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--table", type=Path, required=True, help="a table written by controller_efficiency --mode measure")
    p.add_argument("--budget", type=int, default=48)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--axis", default=None, help="the band axis of the two-band composite (default: the first "
                                                  "workload axis that varies over the table's workloads)")
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    if args.budget < 1 or args.seeds < 1:
        p.error("--budget and --seeds must be >= 1")
    if not args.table.is_file():
        p.error(f"--table {args.table}: no such file")
    base = results_path(f"composite_bound_{table_name(args.table)}_b{args.budget}", args.out,
                        "composite_bound.py").with_suffix("")  # a bad --out: one line, exit 2, before any work
    data = replay(args.table, args.budget, args.seeds, args.axis)
    base.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    base.with_suffix(".md").write_text(markdown(data, command_line("composite_bound.py", argv)))
    print(base.with_suffix(".md").read_text())
    return data


if __name__ == "__main__":
    main()
