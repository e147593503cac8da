"""The controller's ``surrogate`` rule, replayed over the measured tables (issue 5): does it beat the evidence walk?

For each measured table x budget (the configurations ``benchmarks/search_bound.py`` ran, or ``--tables`` /
``--budgets``) and each rule variant, the evidence-driven controller of ``controller_efficiency.py --mode table``
(same random arm, start points, seeds and metric: median over seeds of the candidates gated until one reaches random
search's final best, over random's own count, unreached counted as budget + 1) - the evidence arm only, so one
variant of one configuration costs seconds. The variant ``base`` is the controller's defaults (no surrogate): its
figure equals the committed ``controller_efficiency_<table>_measured_b<budget>`` result's for the same seeds.

Usage: ``python benchmarks/surrogate_ablation.py`` (all configurations, the default variants, 20 seeds, two worker
processes) -> ``benchmarks/results/surrogate_ablation.{md,json}``; ``--variant NAME=KEY=VALUE,KEY=VALUE`` (repeat)
replaces the variants, e.g. ``--variant base= --variant always=surrogate=rbf,surrogate_turns=always``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, command_line, positive_int, results_path, stamp, usage_error
from controller_efficiency import (
    RULES,
    TableEval,
    censored_ratio,
    needed,
    parse_fix,
    random_arm,
    run_controller,
    start_point,
)
from pydantic import ValidationError

from kernelopt.controller import Rules

#: name -> controller rules over ``controller_efficiency.RULES`` (the defaults of the surrogate keys: rbf, length
#: scale 0.5, kappa 1)
VARIANTS: dict[str, dict[str, Any]] = {
    "base": {},
    "rbf always": {"surrogate": "rbf", "surrogate_turns": "always"},
    "rbf alternate": {"surrogate": "rbf", "surrogate_turns": "alternate"},
    "rbf on_loss": {"surrogate": "rbf", "surrogate_turns": "on_loss"},
    "rbf neighbours": {"surrogate": "rbf", "surrogate_turns": "neighbours"},
    "rbf race": {"surrogate": "rbf", "surrogate_turns": "race"},
    "rbf always ls0.8 k2": {"surrogate": "rbf", "surrogate_turns": "always", "surrogate_ls": 0.8,
                            "surrogate_kappa": 2.0},
    "rbf always ls0.8 k0.5": {"surrogate": "rbf", "surrogate_turns": "always", "surrogate_ls": 0.8,
                              "surrogate_kappa": 0.5},
    "additive always k0.5": {"surrogate": "additive", "surrogate_turns": "always", "surrogate_kappa": 0.5},
}


def configurations(folder: Path) -> list[tuple[str, int]]:
    """(table file, budget) of every ``search_bound_<table>_b<budget>.json`` in ``folder``."""
    out = []
    for f in sorted(folder.glob("search_bound_*_b*.json")):
        r = json.loads(f.read_text())
        out.append((str(r["table"]), int(r["budget"])))
    return out


def figure(job: tuple[str, int, int, dict[str, Any]]) -> float:
    """The censored evidence/random median of one variant on one table and budget."""
    table, budget, seeds, rules = job
    ev = TableEval(Path(table))
    op = ev.op.name
    ratios = []
    for seed in range(seeds):
        _, target, random_needed = random_arm(op, ev, budget, seed, ev.fix)
        order, _ = run_controller(op, ev, budget, seed, True, None, start_point(op, seed, ev.fix), ev.fix,
                                  {**RULES, **rules})
        ratios.append(censored_ratio(needed(order, ev, target), random_needed, budget))  # type: ignore[arg-type]
    return round(statistics.median(ratios), 3)


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME=KEY=VALUE,KEY=VALUE`` (``NAME=`` for the defaults) -> (name, rules)."""
    name, sep, body = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=KEY=VALUE,... (NAME= for the defaults)")
    try:
        rules = parse_fix([p for p in body.split(",") if p])
    except SystemExit as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    try:
        Rules(**{**RULES, **rules})
    except ValidationError as exc:
        why = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise argparse.ArgumentTypeError(f"{text!r}: {why}") from None
    return name, rules


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="*", type=Path, default=None,
                    help="measured tables (default: those of the search_bound_*.json files in --out)")
    ap.add_argument("--budgets", nargs="*", type=positive_int, default=None,
                    help="budgets for --tables (default: those the search_bound files ran per table)")
    ap.add_argument("--seeds", type=positive_int, default=20)
    ap.add_argument("--variant", action="append", type=parse_variant, default=None, metavar="NAME=K=V,...")
    ap.add_argument("--jobs", type=positive_int, default=2, help="worker processes")
    ap.add_argument("--name", default="surrogate_ablation", help="result file name (no suffix)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    path = results_path(args.name, args.out, "surrogate_ablation.py")
    found = configurations(RESULTS)
    if args.tables:
        for t in args.tables:
            if not t.is_file():
                usage_error("surrogate_ablation.py", f"--tables {t}: no such file")
        budgets = args.budgets or sorted({b for _, b in found}) or [48]
        configs = [(str(t), b) for t in args.tables for b in budgets]
    else:
        configs = [(t, b) for t, b in found if not args.budgets or b in args.budgets]
    if not configs:
        usage_error("surrogate_ablation.py", "no table x budget to replay (give --tables, or run search_bound.py)")
    variants = dict(args.variant) if args.variant else VARIANTS
    jobs = [(t, b, args.seeds, rules) for t, b in configs for rules in variants.values()]
    print(f"{len(configs)} configurations x {len(variants)} variants, {args.seeds} seeds each", flush=True)
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        got = pool.map(figure, jobs, chunksize=1)
    it = iter(got)
    rows = [{"table": Path(t).stem.removeprefix("controller_space_"), "budget": b,
             "figures": {name: next(it) for name in variants}} for t, b in configs]
    names = list(variants)
    summary = {n: {"median": statistics.median(r["figures"][n] for r in rows),
                   "at_or_below_third": sum(r["figures"][n] <= 1 / 3 + 1e-9 for r in rows),
                   **({"better_than_base": sum(r["figures"][n] < r["figures"]["base"] - 1e-9 for r in rows),
                       "worse_than_base": sum(r["figures"][n] > r["figures"]["base"] + 1e-9 for r in rows)}
                      if "base" in variants else {})} for n in names}
    out = {"command": command_line("surrogate_ablation.py", argv), "seeds": args.seeds,
           "variants": variants, "rows": rows, "summary": summary, "stamp": stamp()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"# The controller's surrogate rule replayed over the measured tables ({args.seeds} seeds)", "",
             ("Figure: median over seeds of (candidates the evidence-driven controller gates until one reaches random "
              "search's final best) / (random's own count), unreached counted as budget + 1 - "
              "`controller_efficiency.py --mode table`'s censored figure, evidence arm only. `base`: the controller's "
              "defaults (no surrogate). Issue 5's target: <= 1/3. Command: `" + out["command"] + "`."), "",
             "Variants (rules over the replay's): " + "; ".join(
                 f"**{n}** " + (", ".join(f"{k}={v}" for k, v in r.items()) or "defaults") for n, r in variants.items())
             + ".", "",
             "| table | budget | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    for r in rows:
        best = min(r["figures"].values())
        lines.append(f"| {r['table']} | {r['budget']} | " + " | ".join(
            (f"**{r['figures'][n]:.3f}**" if r["figures"][n] == best else f"{r['figures'][n]:.3f}") for n in names)
            + " |")
    lines += ["", "| variant | median | <= 1/3 | better than base | worse than base |", "|---|---:|---:|---:|---:|"]
    for n in names:
        s = summary[n]
        lines.append(f"| {n} | {s['median']:.3f} | {s['at_or_below_third']}/{len(rows)} | "
                     f"{s.get('better_than_base', '-')} | {s.get('worse_than_base', '-')} |")
    path.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return out


if __name__ == "__main__":
    main()
