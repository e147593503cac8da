"""How well do two sweeps agree? Per band, the ratio of two trace files' latencies over the workloads both passed.

Two sweeps of the same code in two device calls should agree; how far they do not is the call-to-call spread a
comparison across calls has to beat. Two sweeps of different code measured in separate calls differ by their
code and by that spread: run this on the bands where they share code to see how much of a difference is real.
(Call BF of 2026-12-01: the GDN prefill dispatch of calls AY and BF run the same sources up to 2,284 tokens; the
two sweeps agree within 2 % per workload below 402 tokens and differ by 0.80-1.55x on 461-2,284, where a call is
three or four launches with host work between them and the CUPTI timer measures the span of the call.)

The bands are the contest table's (shape discovery over the roofline-bytes proxy, ``analyse_operator``). Per band:
the two mean latencies, the ratio of means ``b / a`` and the spread of the per-workload ratios (min, median, max).

Usage:
    python benchmarks/trace_agreement.py --operator gdn_prefill_qk4_v8_d128_k_last \\
        --a benchmarks/results/traces_contest_h200/gdn_prefill_qk4_v8_d128_k_last/superseded/retained_wy3f_bv64_401_2026-12-01.jsonl \\
        --b benchmarks/results/profiles_v/contest_scratch_bf/gdn_prefill_qk4_v8_d128_k_last/retained.jsonl \\
        --name trace_agreement_gdn_prefill_ay_bf_h200
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import command_line, fmt, load_operator_arg, md_table, results_path, write_results
from dispatch_plan import passed

from kernelopt.analysis.campaign_analysis import analyse_operator
from kernelopt.operators import load_operator


def _groups(op: Any, hw: str | None, axis: str | None) -> tuple[str, list[tuple[str, list[str]]]]:
    """(axis, [(group name, workload uuids)]): the contest table's bands, or one group per value of ``axis``."""
    if axis is None:
        analysis = analyse_operator(op.definition, op.workloads, op.path, None, hw)
        return analysis["bands"]["band_axis"], [(b["name"], list(b["workloads"])) for b in analysis["bands"]["bands"]]
    values: dict[Any, list[str]] = {}
    for w in op.workloads:
        if axis not in w.axes:
            raise SystemExit(f"{op.definition.name}: workloads have no axis '{axis}' (axes: {sorted(w.axes)})")
        values.setdefault(w.axes[axis], []).append(w.uuid)
    return axis, [(f"{axis} {v}", us) for v, us in sorted(values.items())]


def agreement(operator: str, a_file: Path, b_file: Path, axis: str | None = None) -> dict[str, Any]:
    """Per band of the operator (or per value of the workload axis ``axis``): the workloads both files passed, each
    file's mean latency, the ratio of means (b / a) and the per-workload ratios' min / median / max (JSON-ready)."""
    op = load_operator(operator)
    (a, a_name, hw), (b, b_name, b_hw) = passed(a_file, operator), passed(b_file, operator)
    common = [w.uuid for w in op.workloads if w.uuid in a and w.uuid in b]
    if not common:
        raise SystemExit(f"no workload passed in both {a_file} and {b_file}")
    band_axis, groups = _groups(op, hw, axis)
    bands = []
    for name, members in groups:
        us = [u for u in common if u in set(members)]
        if not us:
            continue
        ratios = sorted(b[u] / a[u] for u in us)
        mean_a, mean_b = statistics.fmean(a[u] for u in us), statistics.fmean(b[u] for u in us)
        bands.append({"band": name, "workloads": len(us), "a_ms": mean_a, "b_ms": mean_b,
                      "ratio_of_means": mean_b / mean_a, "ratio_min": ratios[0],
                      "ratio_median": statistics.median(ratios), "ratio_max": ratios[-1]})
    all_ratios = sorted(b[u] / a[u] for u in common)
    return {"operator": operator, "a": {"file": str(a_file), "solution": a_name, "hardware": hw},
            "b": {"file": str(b_file), "solution": b_name, "hardware": b_hw}, "workloads": len(common),
            "band_axis": band_axis, "bands": bands,
            "ratio_of_means": sum(b[u] for u in common) / sum(a[u] for u in common),
            "ratio_min": all_ratios[0], "ratio_max": all_ratios[-1]}


def faster(a_file: Path, b_file: Path, operator: str) -> str:
    """``"b"`` when ``b_file`` passed every workload ``a_file`` passed and its summed latency over them is lower,
    else ``"a"`` (for a session script choosing between two variants it measured side by side). Both files must
    hold traces of ``operator`` (else ``SystemExit``)."""
    (a, _, _), (b, _, _) = passed(a_file, operator), passed(b_file, operator)
    if not a or any(u not in b for u in a):
        return "b" if b and not a else "a"
    return "b" if sum(b[u] for u in a) < sum(a.values()) else "a"


def markdown(r: dict[str, Any], command: str) -> str:
    rows = [[x["band"], x["workloads"], fmt(x["a_ms"]), fmt(x["b_ms"]), fmt(x["ratio_of_means"], ".3f"),
             f"{x['ratio_min']:.3f} / {x['ratio_median']:.3f} / {x['ratio_max']:.3f}"] for x in r["bands"]]
    return "\n".join([
        f"# Trace agreement — {r['operator']}", "",
        f"Command: `{command}`", "",
        f"- a: `{r['a']['file']}` ({r['a']['solution']}, {r['a']['hardware']})",
        f"- b: `{r['b']['file']}` ({r['b']['solution']}, {r['b']['hardware']})",
        (f"- {r['workloads']} workloads passed by both; ratio of means b / a over all of them "
         f"**{r['ratio_of_means']:.3f}** (per workload {r['ratio_min']:.3f} to {r['ratio_max']:.3f})"), "",
        md_table(["band", "workloads", "a mean ms", "b mean ms", "b / a (means)",
                  "b / a per workload: min / median / max"], rows)])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--operator", required=True, help="definition name")
    p.add_argument("--a", type=Path, required=True, help="first trace file (JSONL)")
    p.add_argument("--b", type=Path, required=True, help="second trace file (JSONL)")
    p.add_argument("--name", default=None, help="results file stem (default: print only)")
    p.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    p.add_argument("--axis", default=None,
                   help="group by each value of this workload axis (e.g. batch_size) instead of the contest bands")
    p.add_argument("--faster", action="store_true",
                   help="print only 'b' if the second file passed every workload the first passed and is faster "
                        "over them, else 'a'")
    args = p.parse_args(argv)
    load_operator_arg("trace_agreement.py", args.operator)
    if args.name:
        results_path(args.name, args.out, "trace_agreement.py")
    for f in (args.a, args.b):
        if not f.is_file():
            p.error(f"{f}: no such trace file")
    if args.faster:
        print(faster(args.a, args.b, args.operator))
        return 0
    r = agreement(args.operator, args.a, args.b, args.axis)
    cmd = command_line("trace_agreement.py", argv)
    md = markdown(r, cmd)
    print(md)
    if args.name:
        path = write_results(args.name, {"command": cmd, **r}, md, args.out)
        print(f"wrote {path} and {path.with_suffix('.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
