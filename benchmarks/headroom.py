"""How far is a speedup target over a baseline, in roofline terms? Read from two swept trace files.

For each value of a band axis: our and the baseline's mean latency, the physical lower bound (the operator's
``roofline.py`` over the device's measured ceilings, ``benchmarks/results/ceilings_*.json``) and each side's
roofline fraction. Then the question a kernel engineer asks before spending GPU time: keeping our latency on the
workloads where we already beat the baseline, at what fraction ``f`` of the roofline must the other workloads run
for the ratio of mean latencies (baseline / ours, the contest's metric) to reach ``--target``? ``R(f)`` is
printed for a few fractions, and ``f*`` is solved (bisection; ``R`` grows with ``f``). When even ``f = 1`` (every
such workload on its lower bound) misses the target, the target is out of reach for any kernel. With ``--all``
every workload may improve (the question for a target against a much slower baseline, e.g. the paper's speedups
over the PyTorch reference, where we already win everywhere).

Usage:
    python benchmarks/headroom.py --operator gdn_decode_qk4_v8_d128_k_last \\
        --ours benchmarks/results/traces_contest_h200/gdn_decode_qk4_v8_d128_k_last/retained.jsonl \\
        --baseline benchmarks/results/traces_contest_h200/gdn_decode_qk4_v8_d128_k_last/fla.jsonl \\
        --target 1.10 --name headroom_gdn_decode_fla_h200
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import command_line, fmt, load_operator_arg, md_table, results_path, write_results
from dispatch_plan import passed

from kernelopt.analysis.roofline import load_ceilings, load_roofline, workload_bounds
from kernelopt.operators import load_operator

FRACTIONS = (0.6, 0.7, 0.8, 0.9, 1.0)


def ratio_at(f: float, ours: dict[str, float], base: dict[str, float], bound: dict[str, float],
             improve_all: bool = False) -> float:
    """Baseline / ours ratio of summed latencies when every workload we do not already win (``improve_all``:
    every workload) runs at ``f`` of its roofline (never slower than today; ``f = 0``: today's ratio)."""
    total = sum(ours[u] if (ours[u] <= base[u] and not improve_all) or f <= 0 else min(ours[u], bound[u] / f)
                for u in ours)
    return sum(base.values()) / total


def needed_fraction(target: float, ours: dict[str, float], base: dict[str, float],
                    bound: dict[str, float], improve_all: bool = False) -> float | None:
    """The smallest roofline fraction reaching ``target`` (None: not even on the roofline; 0.0: today's latencies
    already reach it, no fraction needed)."""
    def r(f: float) -> float:
        return ratio_at(f, ours, base, bound, improve_all)

    if sum(base.values()) / sum(ours.values()) >= target:  # R(f) does not fall below today's ratio
        return 0.0
    if r(1.0) < target:
        return None
    lo, hi = 1e-4, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if r(mid) >= target else (mid, hi)
    return hi


def latencies(op: Any, ours_file: Path, base_file: Path) -> dict[str, Any]:
    """Over the workloads both files passed: our, the baseline's and the lower-bound latency per UUID (ms), the
    workloads, the solution names and the hardware the traces name."""
    (ours_all, ours_name, hw), (base_all, base_name, _) = passed(ours_file, op.name), passed(base_file, op.name)
    common = [w for w in op.workloads if w.uuid in ours_all and w.uuid in base_all]
    if not common:
        raise SystemExit("no workload passed in both trace files")
    ceilings = load_ceilings(hw)
    roof = load_roofline(op.path)
    if ceilings is None or roof is None:
        raise SystemExit(f"no device ceilings for {hw!r} or no roofline.py for {op.name}: no bound to compare with")
    bounds = workload_bounds(roof, op.definition.const_axes, {w.uuid: w.axes for w in common}, ceilings)
    return {"workloads": common, "ours_name": ours_name, "base_name": base_name, "hardware": hw,
            "ours": {w.uuid: ours_all[w.uuid] for w in common}, "base": {w.uuid: base_all[w.uuid] for w in common},
            "bound": {w.uuid: bounds[w.uuid]["bound_ms"] for w in common}}


def headroom(operator: str, ours_file: Path, base_file: Path, target: float, axis: str | None,
             improve_all: bool = False) -> dict[str, Any]:
    """The per-band table and the fraction the target needs (JSON-ready)."""
    op = load_operator(operator)
    lat = latencies(op, ours_file, base_file)
    common, ours, base, bound, hw = lat["workloads"], lat["ours"], lat["base"], lat["bound"], lat["hardware"]
    ours_name, base_name = lat["ours_name"], lat["base_name"]
    axis = axis or op.definition.var_axes[0]
    if axis not in common[0].axes:
        raise SystemExit(f"--axis {axis}: not a var axis of {operator} ({sorted(common[0].axes)})")
    groups: dict[int, list[str]] = defaultdict(list)
    for w in common:
        groups[w.axes[axis]].append(w.uuid)
    bands = []
    for value in sorted(groups):
        us = groups[value]
        o, b, lb = (statistics.fmean(d[u] for u in us) for d in (ours, base, bound))
        bands.append({axis: value, "workloads": len(us), "ours_ms": o, "baseline_ms": b, "bound_ms": lb,
                      "ours_fraction": lb / o, "baseline_fraction": lb / b, "baseline_over_ours": b / o})
    return {"operator": operator, "hardware": hw, "ours": ours_name, "baseline": base_name,
            "axis": axis, "workloads": len(common), "target": target,
            "ratio_now": sum(base.values()) / sum(ours.values()),
            "improve_all": improve_all,
            "ratio_at": {f: ratio_at(f, ours, base, bound, improve_all) for f in FRACTIONS},
            "needed_fraction": needed_fraction(target, ours, base, bound, improve_all), "bands": bands}


def markdown(r: dict[str, Any], command: str) -> str:
    ax = r["axis"]
    rows = [[b[ax], b["workloads"], fmt(b["ours_ms"] * 1e3, ".2f"), fmt(b["baseline_ms"] * 1e3, ".2f"),
             fmt(b["bound_ms"] * 1e3, ".2f"), fmt(b["ours_fraction"], ".2f"), fmt(b["baseline_fraction"], ".2f"),
             fmt(b["baseline_over_ours"], ".2f") + "x"] for b in r["bands"]]
    need = r["needed_fraction"]
    which = "every workload" if r["improve_all"] else f"every workload where {r['baseline']} is faster today"
    if need == 0.0:
        verdict = f"already reached ({r['ratio_now']:.3f}x >= {r['target']:.2f}x): no roofline fraction needed"
    elif need is not None:
        verdict = f"needs **{need:.3f} of the roofline** on {which}"
    elif r["improve_all"]:
        verdict = f"**out of reach**: even on the roofline the ratio is {r['ratio_at'][1.0]:.3f}x"
    else:  # only the workloads we lose may improve here; none left, or not enough: say what --all would model
        verdict = (f"not reached by improving only {which} (at most {r['ratio_at'][1.0]:.3f}x); rerun with `--all` "
                   "to let every workload move toward its roofline")
    return "\n".join([
        f"# Headroom — {r['operator']}: {r['ours']} vs {r['baseline']}", "",
        f"Command: `{command}`", "",
        f"Hardware (from the traces): {r['hardware']}; {r['workloads']} workloads passed by both; roofline = "
        "the operator's `roofline.py` over the device's measured ceilings.", "",
        md_table([ax, "workloads", "ours us", "baseline us", "bound us", "ours fraction", "baseline fraction",
                  "baseline / ours"], rows), "",
        f"Ratio of mean latencies now: **{r['ratio_now']:.3f}x**. "
        + ("Running every workload" if r["improve_all"] else "Keeping our latency where we already win and running "
           "the rest") + " at fraction f of the roofline (never slower than today): " + ", ".join(f"f={f:g}: {v:.3f}x" for f, v in r["ratio_at"].items())
        + f". Target {r['target']:g}x {verdict}."])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--operator", required=True)
    ap.add_argument("--ours", type=Path, required=True, help="our kernel's trace file (JSONL)")
    ap.add_argument("--baseline", type=Path, required=True, help="the baseline's trace file (JSONL)")
    ap.add_argument("--target", type=float, default=1.10, help="baseline / ours ratio of mean latencies to reach")
    ap.add_argument("--axis", default=None, help="band axis (default: the definition's first var axis)")
    ap.add_argument("--all", dest="improve_all", action="store_true",
                    help="every workload may improve, not only those where the baseline is faster (for a target "
                         "against a slower baseline, e.g. the paper's speedup over the reference)")
    ap.add_argument("--name", default=None, help="write benchmarks/results/<name>.{json,md}")
    args = ap.parse_args(argv)
    load_operator_arg("headroom.py", args.operator)
    if args.name:
        results_path(args.name, None, "headroom.py")
    for f in (args.ours, args.baseline):
        if not f.is_file():
            ap.error(f"{f}: no such trace file")
    if not math.isfinite(args.target) or args.target <= 0:
        ap.error(f"--target {args.target}: expected a finite ratio > 0")
    r = headroom(args.operator, args.ours, args.baseline, args.target, args.axis, args.improve_all)
    cmd = command_line("headroom.py", argv)
    md = markdown(r, cmd)
    print(md)
    if args.name:
        write_results(args.name, {"command": cmd, **r, "ratio_at": {str(k): v for k, v in r["ratio_at"].items()}}, md)
    return r


if __name__ == "__main__":
    main()
