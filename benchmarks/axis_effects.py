"""What some knobs of a seed change, read off a latency table measured by ``controller_efficiency.py --mode measure``.

For the parameters named by ``--axes``: every measured point whose values of those parameters differ from their first
listed values (a "variant"), against the point equal to it in every other parameter with those first values (the
"base"); the ratio variant / base of their full-mean latencies over the table's workloads. Per variant: pairs, median,
min and max ratio, and in how many pairs the variant was faster. A table measured only in part (a call cut short) is
read as far as it goes: only pairs with both points measured on every workload count. Where the ratios sit within
the table's noise (~0.1-0.2 % between repeats of a point on the H200), the knobs add points but no structure: a search
over the larger space meets as many near-best points as before, times the variants.

Usage: ``python benchmarks/axis_effects.py --table benchmarks/results/controller_space_gdn_decode_cuda_hints_sub_h100.json
--axes LOAD_CS STORE_CS`` -> ``benchmarks/results/axis_effects_<table stem>.{md,json}``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, command_line, load_space_table, measured_when, results_path, usage_error
from controller_efficiency import choose_seed, space_points, space_seed, table_seed
from search_bound import table_name

SCRIPT = "axis_effects.py"


def full_means(data: dict[str, Any]) -> dict[str, float]:
    """Point hash -> mean latency over the table's workloads, for points measured (and passed) on all of them."""
    rows = data["latency_ms"]
    return {h: statistics.fmean(row[u] for u in data["workloads"]) for h, row in rows.items()
            if all(row.get(u) is not None for u in data["workloads"])}


def point_means(data: dict[str, Any]) -> dict[tuple[tuple[str, Any], ...], float | None]:
    """Every point of the table's (sub-)space, by its sorted parameters -> its full mean (None: not measured on every
    workload); the table's seed is chosen for its operator."""
    choose_seed(data["operator"], table_seed(data))
    means = full_means(data)
    return {tuple(sorted(sol.kernelopt["params"].items())): means.get(sol.hash())
            for sol in space_points(data["operator"], data.get("fix") or {})}


def effects(data: dict[str, Any], axes: list[str]) -> dict[str, Any]:
    """The variant / base ratios of ``axes`` (see the module doc) on one table."""
    operator = data["operator"]
    choose_seed(operator, table_seed(data))
    fix = data.get("fix") or {}
    space = space_seed(operator, fix).spec.space
    unknown = [a for a in axes if a not in space]
    if unknown:
        usage_error(SCRIPT, f"--axes {' '.join(unknown)}: not parameters of the table's seed (its space: {list(space)})")
    fixed = [a for a in axes if len(space[a]) < 2]
    if fixed:
        usage_error(SCRIPT, f"--axes {' '.join(fixed)}: fixed in this table (--fix {fix}): nothing to compare")
    points = point_means(data)
    base_values = {a: space[a][0] for a in axes}
    variants = []
    for combo in itertools.product(*(space[a] for a in axes)):
        values = dict(zip(axes, combo))
        if values == base_values:
            continue
        ratios = []
        for key, mean in points.items():
            params = dict(key)
            if mean is None or any(params[a] != v for a, v in values.items()):
                continue
            base = points.get(tuple(sorted({**params, **base_values}.items())))
            if base is not None:
                ratios.append(mean / base)
        variants.append({"values": values, "pairs": len(ratios),
                         "median": statistics.median(ratios) if ratios else None,
                         "min": min(ratios, default=None), "max": max(ratios, default=None),
                         "faster": sum(r < 1 for r in ratios)})
    return {"table_points": len(points), "measured": sum(m is not None for m in points.values()),
            "base": base_values, "variants": variants}


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def render(table: Path, data: dict[str, Any], axes: list[str], got: dict[str, Any], command: str) -> str:
    lines = [f"# What {', '.join(axes)} change on `{table.name}`", "",
             (f"Seed `{data.get('seed')}`, {data.get('device')}, measured {measured_when(data)} "
             f"(`--mode measure`, {len(data['workloads'])} workloads, fix {data.get('fix') or {}}); "
             f"{got['measured']} of its {got['table_points']} points measured on every workload. Base: "
             f"{got['base']}. Ratio: variant / base full-mean latency of two points equal in every other parameter "
             f"(< 1: the variant is faster). Command: `{command}`."), "",
             "| variant | pairs | median ratio | min | max | variant faster in |", "|---|---:|---:|---:|---:|---:|"]
    for v in got["variants"]:
        lines.append(f"| {', '.join(f'{k}={val}' for k, val in v['values'].items())} | {v['pairs']} | "
                     f"{_fmt(v['median'])} | {_fmt(v['min'])} | {_fmt(v['max'])} | {v['faster']} / {v['pairs']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", type=Path, required=True, help="a --mode measure table of controller_efficiency.py")
    ap.add_argument("--axes", nargs="+", required=True, metavar="PARAM", help="the seed parameters to compare")
    ap.add_argument("--out", type=Path, default=RESULTS, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    path = results_path(f"axis_effects_{table_name(args.table)}", args.out, SCRIPT)  # checked before any work
    data = load_space_table(args.table, SCRIPT)
    got = effects(data, list(args.axes))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"table": str(args.table), "axes": args.axes, **got}, indent=1) + "\n")
    md = render(args.table, data, list(args.axes), got, command_line(SCRIPT, argv))
    path.with_suffix(".md").write_text(md)
    print(md, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
