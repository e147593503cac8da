"""Wall-clock admission: the controller does not start an evaluation it cannot finish before the wall clock.

The wall clock (``Budget.wall_clock_s``) is checked between decisions, so an evaluation started just before it
ran out used to run to its end: on the H200 (2026-12-01, calls AH and AJ) two GDN prefill campaigns with 134 s
and 120 s of clock started their full sweeps and repeat late, ran 80+ s past the clock and were killed by the
caller's own time limit, leaving no champion. Each candidate run now records the wall seconds its evaluation took
(``CandidateRecord.eval_wall_s``); before a sweep, a repeat or a gate round, :func:`estimate` prices the action
from the campaign's own runs, and ``decide`` treats an action that would end past the clock as the clock's end
(promote what clears the gate, else provisionally, else stop), with a ``time`` evidence row saying so; an
action of several runs is first cut to the runs that fit.
Runs without a recorded time (older stores) price nothing: the action is admitted as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from kernelopt.data.records import CandidateRecord, Evidence

FULL_STAGES = ("sweep", "repeat")


def estimate(candidates: list[CandidateRecord], *, runs: int, workloads: int, full: bool,
             workload_ids: Sequence[str] = ()) -> tuple[float, str] | None:
    """Wall seconds ``runs`` candidate evaluations on ``workloads`` workloads should take, and what the figure
    rests on; ``None`` when no run of the campaign recorded its time.

    Priced per workload (gates run a few representative workloads, full runs all of them): a full-run action
    (sweep, repeat) from the median of earlier full runs, before any from the gate runs; a gate round from the
    gate runs alone. Priced from gates, with ``workload_ids`` and the harness's seconds per workload on record
    (``CandidateRecord.workload_wall_s``), the action's own workloads are priced instead (:func:`_summed`): bands
    differ by orders of magnitude (on the H200, 2026-12-01 call AT, a GDN prefill gate on two 3,999-8,192-token
    workloads ran 80+ s past the clock, admitted at the ~3 s median of the campaign's gate workloads)."""
    for stages in ((FULL_STAGES, ("gate",)) if full else (("gate",),)):
        timed = [c for c in candidates
                 if c.stage in stages and c.eval_wall_s is not None and c.workload_count > 0]
        if not timed:
            continue
        # earlier full runs price a full run well (the same workloads); anything else by its own workloads
        summed = _summed(timed, candidates, workload_ids) if workload_ids and stages != FULL_STAGES else None
        if summed is not None:
            return summed * runs, (
                f"{len(workload_ids)} workload(s) per run priced by the most harness seconds each took in this "
                f"campaign, plus the median build time of {len(timed)} earlier "
                f"{'gate' if stages == ('gate',) else 'full'} run(s)")
        per_workload = median(c.eval_wall_s / c.workload_count for c in timed)  # type: ignore[operator]
        return per_workload * workloads * runs, (
            f"{workloads} workload(s) per run at the median {per_workload:.3g} s per workload of {len(timed)} "
            f"earlier {'gate' if stages == ('gate',) else 'full'} run(s)")
    return None


def _summed(timed: list[CandidateRecord], candidates: list[CandidateRecord],
            workload_ids: Sequence[str]) -> float | None:
    """One run on ``workload_ids``: the sum of each workload's cost, ``cost(w)`` the most harness seconds any run
    of the campaign spent on ``w`` (the median of the known costs for a workload never run), plus the median of
    the ``timed`` runs' seconds outside their workloads (build, transfer). Conservative on purpose: a cost is the
    first evaluation's in a worker (reference run and timed), and workloads evaluated in parallel are summed.
    ``None`` when no run recorded its workloads' seconds."""
    cost: dict[str, float] = {}
    for c in candidates:
        for uuid, secs in c.workload_wall_s.items():
            cost[uuid] = max(cost.get(uuid, 0.0), secs)
    if not cost:
        return None
    unknown = median(cost.values())
    outside = [max(0.0, c.eval_wall_s - sum(c.workload_wall_s.values()))  # type: ignore[operator]
               for c in timed if c.workload_wall_s]
    return (median(outside) if outside else 0.0) + sum(cost.get(u, unknown) for u in workload_ids)


def admit(candidates: list[CandidateRecord], *, runs: int, workloads: int, full: bool, left_s: float,
          action: str, subject: str, workload_ids: Sequence[str] = ()) -> tuple[int, Evidence | None]:
    """How many of the action's ``runs`` evaluations fit in the ``left_s`` seconds of clock left, and the
    ``time`` evidence row when that is fewer than ``runs`` (``(runs, None)`` when all fit or nothing prices them)."""
    est = estimate(candidates, runs=1, workloads=workloads, full=full, workload_ids=workload_ids)
    if est is None or est[0] * runs <= left_s:
        return runs, None
    per_run, basis = est  # > 0 here: the runs do not fit
    fit = max(0, min(runs, int(left_s // per_run)))
    return fit, Evidence(kind="time", subject=subject, value=round(per_run * runs, 3),
                         detail={"action": action, "runs": runs, "fit": fit, "per_run_s": round(per_run, 3),
                                 "left_s": round(left_s, 3), "basis": basis,
                                 "rule": "an evaluation that would end past the wall clock is not started"})
