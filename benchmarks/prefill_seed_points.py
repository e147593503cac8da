"""Points of one GDN prefill seed's space timed side by side in one process, interleaved in rounds.

``kernelopt evaluate`` times one solution per process; comparing a seed's launch options that way spends a process
start and a harness sweep per point, and the points are minutes apart (drift). This script loads the seed once,
makes synthetic inputs of the definition's sizes (``--lengths TOTAL:SEQS``: SEQS near-equal sequences; ``--workloads
UUID``: a contest workload's own sequence lengths), and per
round times every point on every length with the official-aligned timer (``--timer cupti``: device time from the
call's first kernel start to its last kernel end, L2 flushed), points in turn, so drift hits them all alike. A point
is ``KEY=VALUE,...`` over the seed's ``PARAMS`` (``defaults``: none; the first point is the one the others are
compared with); each must be a valid point of the seed's space (``seed.json``'s values and constraints).

Per (point, length): median over the rounds of each round's median, ``first / this`` (above 1: faster than the first
point), and the largest difference of its outputs (bf16 rows, fp32 final states) from the first point's, over their
largest value: another tile shape reduces in another order, so a difference at bf16 / tf32 rounding (~1e-3) is
expected; above ``--max-diff`` (or not finite) the point is flagged and the exit status is 1.

    python benchmarks/prefill_seed_points.py --seed gdn_prefill_onelaunch --lengths 61:1 401:4 \\
        --points defaults num_warps=8 BV=32,num_warps=8

On a CPU (``TRITON_INTERPRET=1``, few tokens) only the plumbing and the checks run; the times mean nothing.
Writes ``benchmarks/results/prefill_seed_points_<device>[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TIMER_WORDS,
    add_sweep_options,
    call_timer,
    fmt,
    md_table,
    stamp,
    sweep_results,
    write_sweep,
)
from benchmarks.gdn_prefill_kernel_sweep import (
    SEEDS,
    _rel_diff,
    _seed_module,
    lengths_text,
    parse_lengths,
    seed_runner,
    synthetic_inputs,
    workload_lengths,
)

DEFAULT_SEED = "gdn_prefill_onelaunch"
DEFAULT_LENGTHS = ["61:1", "134:1", "401:4", "832:4", "1376:3"]


def parse_point(text: str) -> dict[str, Any]:
    """``defaults`` -> {}; ``KEY=VALUE,KEY=VALUE`` -> {KEY: VALUE} (values parsed as JSON where they parse)."""
    from kernelopt.cli.tasks import assignments
    from kernelopt.data import DataError

    if text in ("", "defaults"):
        return {}
    try:
        return assignments(text.split(","), f"--points {text!r}")
    except DataError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def point_label(point: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in point.items()) or "defaults"


def checked_points(seed_name: str, points: list[dict[str, Any]], defaults: dict[str, Any]) -> list[str]:
    """Why each point is not a valid point of the seed's space (empty when all are)."""
    from kernelopt.generators.seeds import load_seed

    seed = load_seed(SEEDS / seed_name)
    problems = ((point, seed.point_problem(point, defaults)) for point in points)
    return [f"{point_label(point)}: {why}" for point, why in problems if why]


def cases_of(args: argparse.Namespace) -> dict[str, list[int]]:
    """Each case's label and sequence lengths: ``TOTAL:SEQS`` (near-equal lengths), then each ``--workloads`` prefix's
    contest workload (its own split, labelled ``<uuid8> (TOTAL:SEQS)``)."""
    cases = {text: parse_lengths(text) for text in args.lengths}
    for prefix in args.workloads:
        lengths = workload_lengths(prefix)
        cases[f"{prefix[:8]} ({sum(lengths)}:{len(lengths)})"] = lengths
    return cases


def sweep(args: argparse.Namespace, write: Any = None) -> dict[str, Any]:
    import torch

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    if dev == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        raise SystemExit("prefill_seed_points.py: no GPU; run with TRITON_INTERPRET=1 (and few tokens)")
    mod = _seed_module(args.seed)
    defaults = dict(mod.PARAMS)
    timer = call_timer(dev, args.timer)
    labels = [point_label(p) for p in args.points]
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    cases = args.cases
    for text, lengths in cases.items():
        x = synthetic_inputs(lengths, dev, torch.Generator().manual_seed(7))
        ref = None
        for label, point in zip(labels, args.points):
            cell = cells[(text, label)] = {"lengths": text, "point": label, "rounds": []}
            try:
                run, out = seed_runner(mod, x, {**defaults, **point})
                run()  # compile and check before any timing
                if dev == "cuda":
                    torch.cuda.synchronize()
            except Exception as exc:  # noqa: BLE001 - a point that fails to compile or run is a row
                cell["error"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
                print(f"{text} {label}: {cell['error']}", file=sys.stderr)
                continue
            if ref is None:
                ref = {k: v.clone() for k, v in out.items()}
            cell["diff"] = _rel_diff(out, ref)
            cell["_run"] = run
    meta = {"device": torch.cuda.get_device_name() if dev == "cuda" else "cpu (Triton interpreter)",
            "timer": args.timer if dev == "cuda" else "host clock", "stamp": stamp(), "seed": args.seed,
            "defaults": defaults, "max_diff": args.max_diff}
    data: dict[str, Any] = {}
    for r in range(args.rounds):
        for text in cases:
            for label in labels:
                cell = cells[(text, label)]
                if "_run" in cell:
                    cell["rounds"].append(timer(cell["_run"], args.warmup, args.iters))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
        data = {**meta, "rounds": r + 1, **_table(cells, list(cases), labels, args.max_diff)}
        if write is not None:  # every round: a run cut short keeps the rounds it finished
            write(data)
    for (text, label), cell in cells.items():
        print(f"{text} {label}: {fmt(cell.get('ms'))} ms ({fmt(cell.get('vs_first'), '.3f')}x), "
              f"diff {fmt(cell.get('diff'), '.1e')}", file=sys.stderr)
    return data


def _table(cells: dict[tuple[str, str], dict[str, Any]], lengths: list[str], labels: list[str],
           max_diff: float) -> dict[str, Any]:
    """Rows (median of the rounds so far, ratio to the first point, flags) and the per-point geometric means."""
    rows = []
    for text in lengths:
        first = cells[(text, labels[0])]["rounds"]
        first_ms = statistics.median(first) if first else None
        for label in labels:
            cell = {k: v for k, v in cells[(text, label)].items() if k != "_run"}
            if cell["rounds"]:
                cell["ms"] = statistics.median(cell["rounds"])
                cell["vs_first"] = first_ms / cell["ms"] if first_ms else None
                cell["flagged"] = not math.isfinite(cell["diff"]) or cell["diff"] > max_diff
            cells[(text, label)].update({k: cell[k] for k in ("ms", "vs_first") if k in cell})
            rows.append(cell)
    summary = []
    for label in labels:
        ratios = [c["vs_first"] for c in rows if c["point"] == label and c.get("vs_first")]
        summary.append({"point": label, "lengths": len(ratios),
                        "geomean_vs_first": math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None})
    return {"rows": rows, "summary": summary}


def markdown(data: dict[str, Any], cmd: str) -> str:
    first = data["summary"][0]["point"] if data["summary"] else "-"
    lines = [f"# GDN prefill seed `{data['seed']}`: points of its space side by side",
             "", f"Device {data['device']}; timer: {TIMER_WORDS.get(data['timer'], data['timer'])}. Command: `{cmd}`.",
             "", (f"Seed defaults `{data['defaults']}`; a point overrides them. Per round every point is timed on every "
                  f"length in turn ({data['rounds']} rounds); *median ms*: median of the rounds' medians; "
                  f"*first / this*: against `{first}` on the same length (above 1: faster); *diff*: largest "
                  f"difference of the outputs from `{first}`'s / their largest value (flagged above "
                  f"{data['max_diff']:g} or not finite)."), ""]
    body = [[r["lengths"], r["point"], fmt(r.get("ms")), fmt(r.get("vs_first"), ".3f"), fmt(r.get("diff"), ".1e"),
             "yes" if r.get("flagged") else "", r.get("error", "")] for r in data["rows"]]
    lines.append(md_table(["case (TOTAL:SEQS)", "point", "median ms", "first / this", "diff", "flagged", "error"], body))
    lines += ["", "Geometric mean of *first / this* over the lengths:", "",
              md_table(["point", "lengths", "geomean first / this"],
                       [[s["point"], s["lengths"], fmt(s["geomean_vs_first"], ".3f")] for s in data["summary"]])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", default=DEFAULT_SEED, help=f"a seed folder's name under {SEEDS.name}/ (GDN prefill)")
    ap.add_argument("--lengths", nargs="*", type=lengths_text, default=None, metavar="TOTAL:SEQS",
                    help=f"SEQS near-equal sequences of TOTAL tokens each (default {' '.join(DEFAULT_LENGTHS)} "
                         "unless --workloads is given)")
    ap.add_argument("--workloads", nargs="*", default=[], metavar="UUID",
                    help="contest workloads (a UUID prefix is enough): their own sequence lengths, synthetic values")
    ap.add_argument("--points", nargs="+", type=parse_point, default=[{}], metavar="KEY=VALUE,...",
                    help="'defaults' or KEY=VALUE,... over the seed's PARAMS; the first is the comparison's base")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every point on every length (default 3)")
    ap.add_argument("--max-diff", type=float, default=2e-2,
                    help="flag a point whose outputs differ from the first point's by more (relative; default 0.02)")
    add_sweep_options(ap)
    args = ap.parse_args(argv)
    if args.lengths is None:
        args.lengths = [] if args.workloads else list(DEFAULT_LENGTHS)
    if not args.lengths and not args.workloads:
        ap.error("give --lengths TOTAL:SEQS... and / or --workloads UUID...")
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    if not (SEEDS / args.seed / "seed.json").is_file():
        ap.error(f"--seed: no seed {args.seed!r} under {SEEDS} (seeds: "
                 f"{sorted(p.name for p in SEEDS.iterdir() if (p / 'seed.json').is_file())})")
    args.cases = cases_of(args)  # an unknown workload is one line before anything runs
    bad = checked_points(args.seed, args.points, dict(_seed_module(args.seed).PARAMS))
    if bad:
        ap.error(f"--points: not a valid point of {args.seed}'s space:\n  " + "\n  ".join(bad))
    sweep_results(Path(__file__).name, args)  # a bad --out / --name is one line before anything is measured
    data = sweep(args, lambda d: write_sweep(Path(__file__).name, argv, args, d, markdown))
    flagged = [f"{r['lengths']} {r['point']}" for r in data["rows"] if r.get("flagged")]
    if flagged:
        print(f"prefill_seed_points.py: outputs differ from the first point's beyond --max-diff: {flagged}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
