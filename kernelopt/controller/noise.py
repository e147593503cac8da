"""Run-to-run noise floor estimated from repeated full runs of the same solutions."""

from __future__ import annotations

import math
import statistics

from kernelopt.controller.selection import SolutionRuns
from kernelopt.data.records import Evidence


def noise_floor(groups: list[SolutionRuns], default: float) -> tuple[float, Evidence]:
    """Pooled relative standard deviation of per-run mean latencies.

    Every solution with at least two fully-passed full runs contributes the squared relative
    deviations of its per-run means from their mean; the pooled variance divides their sum by
    the pooled degrees of freedom (sum of ``n - 1``). With no repeated solution the default is
    used.

    Args:
        groups: Runs grouped by solution.
        default: Relative floor to assume when nothing was repeated.

    Returns:
        The relative noise floor (e.g. 0.02 = 2 %) and the evidence row describing it.
    """
    ss = 0.0
    dof = 0
    used = []
    for g in groups:
        means = g.full_means if g.full_passed else []
        if len(means) < 2:
            continue
        mu = statistics.fmean(means)
        if mu <= 0:
            continue
        ss += sum(((m - mu) / mu) ** 2 for m in means)
        dof += len(means) - 1
        used.append(g.solution_hash)
    if dof == 0:
        return default, Evidence(kind="noise_floor", subject="default", value=default,
                                 detail={"source": "default", "solutions": 0, "dof": 0})
    floor = math.sqrt(ss / dof)
    return floor, Evidence(kind="noise_floor", subject="repeats", value=floor,
                           detail={"source": "repeats", "solutions": len(used), "dof": dof})
