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
* once: no earlier ``dispatch`` decision with the same specialists;
* nested split (added 2026-12-01: on the H200 the GDN prefill state walk wanted 64-column V tiles at 13-57
  sequences and 32 at 2-5, all in one band of ``total_seq_len``): a band also splits in two along another axis
  a composed solution can read (the analysis's ``dispatch_axes``) when each side has at least
  ``MIN_SPLIT_SIDE`` workloads, the sides' winners differ, and on a side where the band's winner lost, that
  side's winner beats it by more than the same ``max(noise floor, min_improvement or 1 %)`` (on the side's own
  workloads: a small side's real difference is not diluted by the band); the split saving most is kept
  (a nested dispatch: :func:`kernelopt.generators.dispatch.compose_planned`), and a split band is never merged
  with its neighbours.

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
                     "uuids": uuids,
                     "costs_ms": costs, "ratio_sums": ratios, "run_id": winner, "ms": costs.get(winner),
                     "best_single_ms": costs.get(best.run_id)})
    return rows, best


def winner_totals(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Over the bands where the best single solution has a cost (rows of :func:`band_winners`): the per-band
    winners' summed latency (``composite_ms``), the best single's (``best_single_ms``), the gain by summed latency
    (``latency_gain``, ``1 - composite / single``) and the mean of the per-workload speedups of the winners over
    the best single (``mean_speedup``). A row with a ``split`` (:func:`best_split`) counts its two sides' winners."""
    kept = [r for r in rows if r["best_single_ms"] is not None]
    composite = sum(r["split"]["ms"] if r.get("split") else r["ms"] for r in kept)
    single = sum(r["best_single_ms"] for r in kept)
    count = sum(r["workloads"] for r in kept)
    ratio_sum = sum(r["split"]["ratio_sum"] if r.get("split") else r["ratio_sums"].get(r["run_id"], 0.0)
                    for r in kept)
    return {"composite_ms": composite, "best_single_ms": single,
            "latency_gain": 1.0 - composite / single if single > 0 else 0.0,
            "mean_speedup": ratio_sum / count if count else 1.0}


MIN_SPLIT_SIDE = 2  # workloads on each side of a nested split (one workload's noise must not pick a kernel)


def _side(full_per: dict[str, dict[str, float]], best_per: dict[str, float], uuids: list[str], objective: str,
          best_id: str) -> tuple[str, float, float] | None:
    """The winner on ``uuids`` under ``objective``: ``(run id, summed latency, summed speedup over the best
    single solution)``, or ``None`` when no solution has all of them."""
    scored = {rid: (c, r) for rid, pw in full_per.items()
              if (c := _band_cost(pw, uuids)) is not None and (r := _ratio_sum(pw, best_per, uuids)) is not None}
    if not scored:
        return None
    if objective == "mean_speedup":
        rid = max(scored, key=lambda k: (scored[k][1], k == best_id, k))
    else:
        rid = min(scored, key=lambda k: (scored[k][0], k != best_id, k))
    return rid, scored[rid][0], scored[rid][1]


def best_split(row: dict[str, Any], full_per: dict[str, dict[str, float]], best_per: dict[str, float],
               bands_info: dict[str, Any], objective: str, need: float, best_id: str) -> dict[str, Any] | None:
    """The best split of one band row (of :func:`band_winners`) in two along a dispatch axis other than the
    band axis (the rule of the module docstring), or ``None``."""
    uuids = list(row.get("uuids") or [])
    values = bands_info.get("workload_axes") or {}
    whole = _side(full_per, best_per, uuids, objective, best_id)
    if whole is None or any(u not in values for u in uuids):
        return None
    best: dict[str, Any] | None = None
    for axis in bands_info.get("dispatch_axes") or []:
        if axis == bands_info.get("band_axis") or any(axis not in values[u] for u in uuids):
            continue
        for edge in sorted({values[u][axis] for u in uuids})[:-1]:
            low = [u for u in uuids if values[u][axis] <= edge]
            high = [u for u in uuids if values[u][axis] > edge]
            if min(len(low), len(high)) < MIN_SPLIT_SIDE:
                continue
            sides = [_side(full_per, best_per, part, objective, best_id) for part in (low, high)]
            if None in sides or sides[0][0] == sides[1][0]:
                continue
            # on each side the band's winner lost: its winner must beat it there by more than the noise
            beaten = [_side({whole[0]: full_per[whole[0]]}, best_per, part, objective, best_id)
                      for part, side in zip((low, high), sides) if side[0] != whole[0]]
            mine = [side for side in sides if side[0] != whole[0]]
            if objective == "mean_speedup":
                real = all(m[2] / b[2] - 1.0 > need for m, b in zip(mine, beaten))
                gain = (sides[0][2] + sides[1][2] - whole[2]) / len(uuids)
            else:
                real = all(1.0 - m[1] / b[1] > need for m, b in zip(mine, beaten))
                gain = 1.0 - (sides[0][1] + sides[1][1]) / whole[1] if whole[1] > 0 else 0.0
            if real and gain > 0 and (best is None or gain > best["gain"]):
                best = {"axis": axis, "upper": int(edge), "run_ids": [sides[0][0], sides[1][0]],
                        "ms": sides[0][1] + sides[1][1], "ratio_sum": sides[0][2] + sides[1][2],
                        "workloads": [len(low), len(high)], "gain": gain}
    return best


def describe_nested(detail: dict[str, Any]) -> str:
    """The nested splits of a ``dispatch`` evidence row's detail, for a decision's reason (empty when none)."""
    return "".join(f"; band {i} split again over {n['axis']} at {n['uppers']}"
                   for i, n in enumerate(detail.get("nested") or []) if n)


def plan_dispatch(groups: list[SolutionRuns], analysis: dict[str, Any], campaign_workloads: list[str],
                  noise_floor: float, rules: Rules, decisions: list[Decision]) -> Evidence | None:
    """The ``dispatch`` evidence row (specialists, band edges, estimated gain) or ``None``."""
    objective = rules.dispatch_objective
    rows, best = band_winners(groups, analysis, campaign_workloads, objective)
    full = [g for g in groups if g.full_passed]
    if not rows or len(full) < 2 or best is None:
        return None
    need = max(noise_floor, rules.min_improvement if rules.min_improvement is not None else 0.01)
    full_per = {g.run_id: g.per_workload_mean() for g in full}
    bands_info = analysis.get("bands") or {}
    for row in rows:  # a band whose workloads still disagree along another axis: its winner becomes a split
        if row["best_single_ms"] is not None:
            row["split"] = best_split(row, full_per, full_per[best.run_id], bands_info, objective, need, best.run_id)
    runs: list[dict[str, Any]] = []  # merged consecutive bands with one winner (split bands stand alone)
    for full_row in rows:
        row = {k: full_row[k] for k in ("band", "high", "run_id", "ms", "best_single_ms")}
        split = full_row.get("split")
        if split:
            row["split"] = {k: split[k] for k in ("axis", "upper", "run_ids", "ms", "workloads", "gain")}
        if runs and not split and not runs[-1].get("split") and runs[-1]["run_id"] == row["run_id"]:
            runs[-1]["bands"].append(row)
            runs[-1]["high"] = row["high"]
        else:
            runs.append({"run_id": row["run_id"], "high": row["high"], "bands": [row], "split": split})
    totals = winner_totals(rows)
    if totals["best_single_ms"] <= 0 or (len(runs) < 2 and not runs[0]["split"]):
        return None
    axis = bands_info.get("band_axis")
    gain = totals["mean_speedup"] - 1.0 if objective == "mean_speedup" else totals["latency_gain"]
    if len(runs) == 1:  # one winner along the band axis, split along another: a plain dispatch on that axis
        split = runs[0]["split"]
        axis, specialists, uppers, nested = split["axis"], list(split["run_ids"]), [split["upper"]], [None, None]
    else:
        specialists = [rid for r in runs for rid in (r["split"]["run_ids"] if r["split"] else [r["run_id"]])]
        uppers = [r["high"] for r in runs[:-1]]
        nested = [{"axis": r["split"]["axis"], "uppers": [r["split"]["upper"]]} if r["split"] else None
                  for r in runs]
    tried = any(d.direction == DISPATCH and list(d.candidate_run_ids) == specialists for d in decisions)
    if gain <= need or tried:
        return None
    names = {g.run_id: g.name for g in full}
    return Evidence(kind="dispatch", subject=best.run_id, value=gain, detail={
        "axis": axis, "specialists": specialists, "names": [names[r] for r in specialists],
        "uppers": uppers, "nested": nested, "bands": [row for r in runs for row in r["bands"]],
        "composite_ms": totals["composite_ms"], "best_single_ms": totals["best_single_ms"], "needed_gain": need,
        "objective": objective, "mean_speedup_over_best_single": totals["mean_speedup"],
        "rule": f"per-band winners of the full sweeps ({objective}); gain over the best single solution must "
                "exceed max(noise floor, min_improvement)"})
