"""Would the controller dispatch between these fully swept solutions? Its band planner, fed trace files.

The campaign controller plans a band dispatch (``kernelopt/controller/specialise.py``) from the full sweeps
in its tracking store. This script runs the same planner on FlashInfer Trace JSONL files from anywhere
(contest sweeps, ``kernelopt evaluate`` outputs): the operator's bands (``analyse_operator``, the campaign's
shape discovery, over the workloads every file passed, with the best single solution's latencies), each band's
cost per solution (sum of per-workload means), the per-band winners (and the fastest solution on each workload: the
bound of any split), the estimated gain of the dispatch over the best single solution (ratio of mean latencies, the
contest's metric), and the planner's verdict against ``max(noise floor, min_improvement)``. With ``--compose``,
``kernelopt dispatch`` is the next step.

Usage:
    python benchmarks/dispatch_plan.py --operator gdn_prefill_qk4_v8_d128_k_last \\
        --traces \\
        recurrent=benchmarks/results/traces_contest_h200/gdn_prefill_qk4_v8_d128_k_last/retained.jsonl \\
        chunked=benchmarks/results/profiles_v/prefill_gdn_prefill_chunked.jsonl --noise 0.02 --name ...
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import command_line, fmt, load_operator_arg, md_table, results_path, write_results

from kernelopt.analysis.campaign_analysis import analyse_operator
from kernelopt.controller.budget import Rules
from kernelopt.controller.selection import SolutionRuns, best_full
from kernelopt.controller.specialise import band_winners, describe_nested, plan_dispatch, winner_totals
from kernelopt.data import DataError
from kernelopt.data.loader import parse_model
from kernelopt.data.records import CandidateRecord
from kernelopt.data.trace import EvaluationStatus, Trace
from kernelopt.operators import load_operator


def passed(path: Path, operator: str | None = None) -> tuple[dict[str, float], str, str]:
    """UUID -> latency of the PASSED records of a trace file, the solution name, and the hardware. With
    ``operator``, the file must hold traces, all of that definition (else ``SystemExit`` saying what it holds)."""
    lat: dict[str, float] = {}
    name = hardware = "?"
    records = 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}: not a FlashInfer trace record"
        try:
            t = parse_model(Trace, json.loads(line), where)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{where} (malformed JSON: {exc.msg})") from None
        except DataError as exc:
            raise SystemExit(str(exc)) from None
        if t.evaluation is None:
            raise SystemExit(f"{where}: no evaluation")
        if operator is not None and t.definition != operator:
            raise SystemExit(f"{path} holds traces of {t.definition}, not {operator} (line {n})")
        records += 1
        if name not in ("?", t.solution):  # e.g. `kernelopt evaluate`'s default file, appended by every solution
            raise SystemExit(f"{path}:{n}: solution {t.solution!r} after {name!r}: a trace file per solution (one "
                             "solution's sweep), e.g. `kernelopt evaluate ... output=<file>`")
        name, hardware = t.solution or name, t.evaluation.environment.hardware
        if t.evaluation.status == EvaluationStatus.PASSED and t.evaluation.performance is not None:
            lat[t.workload.uuid] = t.evaluation.performance.latency_ms
    if operator is not None and not records:
        raise SystemExit(f"{path} holds no traces")
    return lat, name, hardware


def plan(operator: str, traces: dict[str, Path], noise: float, objective: str = "mean_latency") -> dict[str, Any]:
    """The planner's inputs and verdict (JSON-ready)."""
    op = load_operator(operator)
    runs = {label: passed(p, operator) for label, p in traces.items()}
    common = [w for w in op.workloads if all(w.uuid in lat for lat, _, _ in runs.values())]
    if not common:
        raise SystemExit("no workload passed in every trace file")
    uuids = [w.uuid for w in common]
    mean = {label: statistics.fmean(r[0][u] for u in uuids) for label, r in runs.items()}
    hardware = next(iter(runs.values()))[2]
    groups = []
    for label, (lat, name, _) in runs.items():
        pw = {u: lat[u] for u in uuids}
        rec = CandidateRecord(run_id=label, name=name, solution_hash=label, stage="sweep", status="FINISHED",
                              pass_count=len(pw), workload_count=len(pw), mean_latency_ms=mean[label],
                              per_workload_ms=pw, start_time=0.0)
        groups.append(SolutionRuns(solution_hash=label, full=[rec]))
    best = best_full(groups).run_id  # type: ignore[union-attr]  (every group is fully swept)
    analysis = analyse_operator(op.definition, common, op.path, {u: runs[best][0][u] for u in uuids}, hardware)
    if analysis["bands"].get("band_axis") is None:  # one band: no dispatch to plan (its table would be empty)
        raise SystemExit(f"only {len(common)} workload(s) passed in every trace file, too few to form bands: no var "
                         f"axis of {operator} varies over them")
    rows, _ = band_winners(groups, analysis, uuids, objective)
    bands = [{"band": r["band"], "workloads": r["workloads"], "cost_ms": r["costs_ms"], "winner": r["run_id"]}
             for r in rows]
    totals = winner_totals(rows)
    ev = plan_dispatch(groups, analysis, uuids, noise, Rules(dispatch_objective=objective), [])
    return {"operator": operator, "traces": {k: str(v) for k, v in traces.items()},
            "names": {k: r[1] for k, r in runs.items()}, "hardware": hardware,
            "common_workloads": len(common), "band_axis": analysis["bands"].get("band_axis"), "mean_ms": mean,
            "best_single": best, "bands": bands, "per_band_winners_mean_ms": totals["composite_ms"] / len(common),
            "per_workload_best_mean_ms": statistics.fmean(min(r[0][u] for r in runs.values()) for u in uuids),
            "gain_over_best_single": totals["latency_gain"], "noise_floor": noise,
            "objective": objective, "mean_speedup_over_best_single": totals["mean_speedup"],
            "planned": ev.detail if ev is not None else None}


def markdown(res: dict[str, Any], command: str) -> str:
    labels = list(res["mean_ms"])
    rows = [[b["band"], b["workloads"], *[fmt(b["cost_ms"][k] / b["workloads"]) for k in labels], b["winner"]]
            for b in res["bands"]]
    planned = res["planned"]
    verdict = ("**dispatch planned**: " + ", ".join(planned["names"]) + f" with edges {planned['uppers']}"
               + describe_nested(planned)
               if planned else "**no dispatch**: the gain does not exceed max(noise floor, min_improvement)")
    return "\n".join([
        f"# Dispatch plan from traces — {res['operator']}", "", f"Command: `{command}`", "",
        (f"Hardware (from the traces): {res['hardware']}; {res['common_workloads']} workloads passed by "
         f"every solution; band axis `{res['band_axis']}`."), "",
        md_table(["band", "workloads", *[f"{k} mean ms" for k in labels], "winner"], rows), "",
        ("Mean over the common workloads: " + ", ".join(f"{k} {fmt(v)} ms" for k, v in res["mean_ms"].items())
         + f"; per-band winners {fmt(res['per_band_winners_mean_ms'])} ms (the fastest solution on each workload: "
         f"{fmt(res['per_workload_best_mean_ms'])} ms, what no split of these solutions can beat) — "
         f"gain over the best single ({res['best_single']}) {res['gain_over_best_single']:.1%}; mean of the "
         f"per-workload speedups of the per-band winners over it {res['mean_speedup_over_best_single']:.3f}x. "
         f"Objective `{res['objective']}`: the gain it names must exceed {max(res['noise_floor'], 0.01):.1%}."),
        "", verdict])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--operator", required=True)
    p.add_argument("--traces", nargs="+", required=True, metavar="LABEL=FILE")
    p.add_argument("--noise", type=float, default=0.02,
                   help="noise floor (relative), as a campaign estimates it")
    p.add_argument("--objective", choices=("mean_latency", "mean_speedup"), default="mean_latency",
                   help="what the dispatch must improve: summed latency (the paper's metric, default) or the mean "
                        "of per-workload speedups (the contest's score)")
    p.add_argument("--name", default=None, help="write benchmarks/results/<name>.{json,md}")
    a = p.parse_args(argv)
    load_operator_arg("dispatch_plan.py", a.operator)
    if a.name:
        results_path(a.name, None, "dispatch_plan.py")
    traces = {}
    for item in a.traces:
        label, sep, path = item.partition("=")
        if not sep or not label or not Path(path).is_file():
            raise SystemExit(f"--traces {item!r}: expected LABEL=FILE with an existing file")
        if label in traces:
            raise SystemExit(f"--traces {item!r}: label {label!r} given twice (each solution needs its own label)")
        traces[label] = Path(path)
    if len(traces) < 2:
        raise SystemExit("--traces: give at least two solutions' trace files")
    res = plan(a.operator, traces, a.noise, a.objective)
    cmd = command_line("dispatch_plan.py", argv)
    md = markdown(res, cmd)
    print(md)
    if a.name:
        write_results(a.name, {**res, "command": cmd}, md)
    return res


if __name__ == "__main__":
    main()
