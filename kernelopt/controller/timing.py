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

from statistics import median

from kernelopt.data.records import CandidateRecord, Evidence

FULL_STAGES = ("sweep", "repeat")


def estimate(candidates: list[CandidateRecord], *, runs: int, workloads: int, full: bool) -> tuple[float, str] | None:
    """Wall seconds ``runs`` candidate evaluations on ``workloads`` workloads should take, and what the figure
    rests on; ``None`` when no run of the campaign recorded its time.

    Priced per workload (gates run a few representative workloads, full runs all of them): a full-run action
    (sweep, repeat) from the median of earlier full runs, before any from the gate runs; a gate round from the
    gate runs alone."""
    for stages in ((FULL_STAGES, ("gate",)) if full else (("gate",),)):
        vals = [c.eval_wall_s / c.workload_count for c in candidates
                if c.stage in stages and c.eval_wall_s is not None and c.workload_count > 0]
        if vals:
            per_workload = median(vals)
            return per_workload * workloads * runs, (
                f"{workloads} workload(s) per run at the median {per_workload:.3g} s per workload of {len(vals)} "
                f"earlier {'gate' if stages == ('gate',) else 'full'} run(s)")
    return None


def admit(candidates: list[CandidateRecord], *, runs: int, workloads: int, full: bool, left_s: float,
          action: str, subject: str) -> tuple[int, Evidence | None]:
    """How many of the action's ``runs`` evaluations fit in the ``left_s`` seconds of clock left, and the
    ``time`` evidence row when that is fewer than ``runs`` (``(runs, None)`` when all fit or nothing prices them)."""
    est = estimate(candidates, runs=1, workloads=workloads, full=full)
    if est is None or est[0] * runs <= left_s:
        return runs, None
    per_run, basis = est  # > 0 here: the runs do not fit
    fit = max(0, min(runs, int(left_s // per_run)))
    return fit, Evidence(kind="time", subject=subject, value=round(per_run * runs, 3),
                         detail={"action": action, "runs": runs, "fit": fit, "per_run_s": round(per_run, 3),
                                 "left_s": round(left_s, 3), "basis": basis,
                                 "rule": "an evaluation that would end past the wall clock is not started"})
