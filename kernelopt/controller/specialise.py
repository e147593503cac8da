"""Band specialisation (pure): when different fully-swept solutions win different bands, plan one
dispatch candidate that runs each band's winner (composed by :mod:`kernelopt.generators.dispatch`).

Rules:

* bands: the analysis bands in axis order; a band's cost for a solution is the sum of its full-run
  per-workload means over the band's campaign workloads (a solution missing one has no cost there);
* winner per band: the lowest cost (the overall best solution where none has a cost or on ties);
  consecutive bands with the same winner merge, and a band edge is the upper edge of the last band
  of a run;
* worth it: at least two distinct winners and an estimated gain
  ``1 - sum(winner costs) / sum(best single solution's costs)`` above
  ``max(noise floor, min_improvement or 1 %)``;
* once: no earlier ``dispatch`` decision with the same specialists.

``rules.dispatch_objective = "mean_speedup"`` scores as the contest does (REFERENCE §4.1: a mean of
per-workload ratios, so a 1.7x win on many short calls counts even where long calls dominate the summed
latency): a band's winner has the largest ``sum(best single's latency / latency)`` over the band's workloads,
and the gain is ``mean(best single's latency / winner's latency) - 1`` over every banded workload. The
default ``"mean_latency"`` is the ratio of summed latencies above (the paper's reporting metric, and how the
best single solution is chosen).
"""

from __future__ import annotations

from typing import Any

from kernelopt.controller.budget import Rules
from kernelopt.controller.selection import SolutionRuns, best_full
from kernelopt.data.records import Decision, Evidence

DISPATCH = "dispatch"


def _band_cost(pw: dict[str, float], uuids: list[str]) -> float | None:
    if not uuids or any(u not in pw for u in uuids):
        return None
    return sum(pw[u] for u in uuids)


def _ratio_sum(pw: dict[str, float], single: dict[str, float], uuids: list[str]) -> float | None:
    if not uuids or any(u not in pw or u not in single or pw[u] <= 0 for u in uuids):
        return None
    return sum(single[u] / pw[u] for u in uuids)


def band_winners(groups: list[SolutionRuns], analysis: dict[str, Any], campaign_workloads: list[str],
                 objective: str = "mean_latency") -> tuple[list[dict[str, Any]], SolutionRuns | None]:
    """Per band (in axis order) of the fully-swept solutions: every solution's cost, its summed speedup over
    the best single solution (``ratio_sums``), the winner under ``objective`` and the best single solution's
    cost (the rules of the module docstring); and that best solution. Empty when the analysis has no band
    axis or nothing is fully swept."""
    info = analysis.get("bands") or {}
    bands = sorted(info.get("bands") or [], key=lambda b: (int(b.get("low", 0)), b["name"]))
    full = [g for g in groups if g.full_passed]
    best = best_full(groups)
    if not info.get("band_axis") or best is None:
        return [], best
    chosen = set(campaign_workloads)
    per = {g.run_id: g.per_workload_mean() for g in full}
    rows = []
    for b in bands:
        uuids = [u for u in b["workloads"] if u in chosen]
        costs = {g.run_id: c for g in full if (c := _band_cost(per[g.run_id], uuids)) is not None}
        ratios = {g.run_id: r for g in full if (r := _ratio_sum(per[g.run_id], per[best.run_id], uuids)) is not None}
        if objective == "mean_speedup" and ratios:
            winner = max(ratios, key=lambda r: (ratios[r], r == best.run_id, r))
        else:
            winner = min(costs, key=lambda r: (costs[r], r != best.run_id, r)) if costs else best.run_id
        rows.append({"band": b["name"], "high": int(b.get("high", b.get("low", 0))), "workloads": len(uuids),
                     "costs_ms": costs, "ratio_sums": ratios, "run_id": winner, "ms": costs.get(winner),
                     "best_single_ms": costs.get(best.run_id)})
    return rows, best


def winner_totals(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Over the bands where the best single solution has a cost (rows of :func:`band_winners`): the per-band
    winners' summed latency (``composite_ms``), the best single's (``best_single_ms``), the gain by summed latency
    (``latency_gain``, ``1 - composite / single``) and the mean of the per-workload speedups of the winners over
    the best single (``mean_speedup``)."""
    kept = [r for r in rows if r["best_single_ms"] is not None]
    composite = sum(r["ms"] for r in kept)
    single = sum(r["best_single_ms"] for r in kept)
    count = sum(r["workloads"] for r in kept)
    ratio_sum = sum(r["ratio_sums"].get(r["run_id"], 0.0) for r in kept)
    return {"composite_ms": composite, "best_single_ms": single,
            "latency_gain": 1.0 - composite / single if single > 0 else 0.0,
            "mean_speedup": ratio_sum / count if count else 1.0}


def plan_dispatch(groups: list[SolutionRuns], analysis: dict[str, Any], campaign_workloads: list[str],
                  noise_floor: float, rules: Rules, decisions: list[Decision]) -> Evidence | None:
    """The ``dispatch`` evidence row (specialists, band edges, estimated gain) or ``None``."""
    objective = rules.dispatch_objective
    rows, best = band_winners(groups, analysis, campaign_workloads, objective)
    full = [g for g in groups if g.full_passed]
    if len(rows) < 2 or len(full) < 2 or best is None:
        return None
    runs: list[dict[str, Any]] = []  # merged consecutive bands with one winner
    for full_row in rows:
        row = {k: full_row[k] for k in ("band", "high", "run_id", "ms", "best_single_ms")}
        if runs and runs[-1]["run_id"] == row["run_id"]:
            runs[-1]["bands"].append(row)
            runs[-1]["high"] = row["high"]
        else:
            runs.append({"run_id": row["run_id"], "high": row["high"], "bands": [row]})
    totals = winner_totals(rows)
    if len(runs) < 2 or totals["best_single_ms"] <= 0:
        return None
    axis = (analysis.get("bands") or {}).get("band_axis")
    gain = totals["mean_speedup"] - 1.0 if objective == "mean_speedup" else totals["latency_gain"]
    need = max(noise_floor, rules.min_improvement if rules.min_improvement is not None else 0.01)
    specialists = [r["run_id"] for r in runs]
    tried = any(d.direction == DISPATCH and list(d.candidate_run_ids) == specialists for d in decisions)
    if gain <= need or tried:
        return None
    names = {g.run_id: g.name for g in full}
    return Evidence(kind="dispatch", subject=best.run_id, value=gain, detail={
        "axis": axis, "specialists": specialists, "names": [names[r] for r in specialists],
        "uppers": [r["high"] for r in runs[:-1]], "bands": [row for r in runs for row in r["bands"]],
        "composite_ms": totals["composite_ms"], "best_single_ms": totals["best_single_ms"], "needed_gain": need,
        "objective": objective, "mean_speedup_over_best_single": totals["mean_speedup"],
        "rule": f"per-band winners of the full sweeps ({objective}); gain over the best single solution must "
                "exceed max(noise floor, min_improvement)"})
