"""The promotion gate (REFERENCE §6.5): may a finalist replace the champion?"""

from __future__ import annotations

import statistics

from kernelopt.controller.budget import Rules
from kernelopt.controller.selection import SolutionRuns
from kernelopt.data.records import ChampionInfo, Evidence


def champion_mean(candidate: SolutionRuns, champion: ChampionInfo) -> tuple[float, str]:
    """Champion latency (ms) to compare the candidate with.

    The champion's overall mean (over its repeats, as registered) when the candidate ran the same
    workloads or the workload sets are not comparable; the mean of the champion's per-workload
    latencies over the candidate's workloads when those are a strict subset of the champion's.

    Returns:
        The latency and its basis: ``"overall_mean"`` or ``"same_workloads"``.
    """
    mine = set(candidate.per_workload_mean())
    theirs = champion.per_workload_ms
    if mine and theirs and mine < set(theirs):
        return statistics.fmean(theirs[u] for u in sorted(mine)), "same_workloads"
    return champion.mean_latency_ms, "overall_mean"


def gate(candidate: SolutionRuns, champion: ChampionInfo | None, rules: Rules,
         *, noise_floor: float | None = None) -> tuple[bool, list[Evidence]]:
    """Check a finalist against the champion.

    A candidate passes when (1) it has at least ``rules.repeats`` full runs, (2) every workload
    PASSED in its gate run and in every full run, (3) its mean over full runs of the per-run mean
    latency beats the champion's by more than ``rules.threshold(noise_floor)`` (relative), and
    (4) its mean p95 is not worse than the champion's by more than ``rules.p95_tolerance``. With no
    champion, (1) and (2) suffice.

    Args:
        candidate: The finalist's runs.
        champion: The current champion, if any.
        rules: Decision rules.
        noise_floor: Relative run-to-run noise; ``rules.noise_floor_default`` when omitted.

    Returns:
        ``(passed, evidence)``: the verdict and one evidence row per check.
    """
    nf = rules.noise_floor_default if noise_floor is None else noise_floor
    subj = candidate.run_id
    ev: list[Evidence] = []
    ok = True

    n_full = len(candidate.full)
    enough = n_full >= rules.repeats
    ev.append(Evidence(kind="repeats", subject=subj, value=n_full,
                       detail={"required": rules.repeats, "ok": enough}))
    ok &= enough

    runs = ([candidate.gate] if candidate.gate is not None else []) + candidate.full
    failed = [r.run_id for r in runs if not r.all_passed]
    ev.append(Evidence(kind="pass_count", subject=subj, value=sum(r.pass_count for r in runs),
                       detail={"evaluations": sum(r.workload_count for r in runs),  # workloads x runs (gate too)
                               "runs": len(runs), "failed_runs": failed, "ok": not failed}))
    ok &= not failed and candidate.full_mean is not None

    mean = candidate.full_mean
    if champion is None:
        ev.append(Evidence(kind="latency", subject=subj, value=mean,
                           detail={"champion": None, "ok": True}))
        return ok, ev

    champ_mean, basis = champion_mean(candidate, champion)
    threshold = rules.threshold(nf)
    gain = (champ_mean - mean) / champ_mean if (mean is not None and champ_mean > 0) else None
    beats = gain is not None and gain > threshold
    ev.append(Evidence(kind="latency", subject=subj, value=mean,
                       detail={"champion_run_id": champion.run_id, "champion_mean_ms": champ_mean,
                               "basis": basis, "gain": gain, "threshold": threshold,
                               "noise_floor": nf, "ok": beats}))
    ok &= beats

    p95, champ_p95 = candidate.full_p95, champion.p95_latency_ms
    if p95 is not None and champ_p95 is not None:
        p95_ok = p95 <= champ_p95 * (1 + rules.p95_tolerance)
        ev.append(Evidence(kind="p95", subject=subj, value=p95,
                           detail={"champion_p95_ms": champ_p95, "tolerance": rules.p95_tolerance,
                                   "ok": p95_ok}))
        ok &= p95_ok
    else:
        ev.append(Evidence(kind="p95", subject=subj, value=p95,
                           detail={"champion_p95_ms": champ_p95, "ok": True, "note": "not comparable"}))
    return bool(ok), ev
