"""A Gaussian-process surrogate over one seed's parameter space (the ``model_guided`` direction).

The offline generator proposes, for the direction :data:`MODEL_GUIDED`, the unmeasured points of the parent's seed
space with the lowest lower confidence bound ``mu - kappa * sd`` of a GP fitted to the campaign's measurements of
that seed's points (GP-LCB, the acquisition of ``benchmarks/search_bound.py``'s searchers, which share this code):

* inputs: each parameter's level position scaled to [0, 1] (``positions``);
* kernel: ``rbf`` (``exp(-|x - x'|^2 / (2 ls^2))``, nearby points alike, interactions allowed) or ``additive`` (the
  share of parameters at the same level: the main-effects model);
* targets (:func:`relative_log_latency`): the log of a solution's mean latency over the workloads every solution was
  measured on (the campaign's gate: the arithmetic mean, as the campaign ranks solutions - the mean of log ratios
  ranked the H200 GDN decode table's second-best point fifth); when no workload is common to all, the mean over its
  workloads of ``log(ms) - log(ref_w)``, ``ref_w`` the geometric mean over the solutions measured on ``w``;
  solutions that failed a workload sit ``log 2`` above the slowest (``search_bound``'s "twice the slowest");
* targets standardised, jitter ``1e-3`` on the diagonal.

Pure: numpy only, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from kernelopt.data.records import MODEL_GUIDED

__all__ = ["MODEL_GUIDED", "kernel", "lcb", "lcb_order", "measured_latencies", "positions", "propose_points",
           "relative_log_latency"]
KERNELS = ("rbf", "additive")
JITTER = 1e-3
FAILED_PENALTY = math.log(2.0)


def positions(space: Mapping[str, Sequence[Any]], points: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Each point's level positions, scaled to [0, 1] per parameter (one column per parameter of ``space``)."""
    return np.array([[list(space[k]).index(p[k]) / max(1, len(space[k]) - 1) for k in space] for p in points],
                    dtype=float).reshape(len(points), len(space))


def kernel(a: np.ndarray, b: np.ndarray, name: str, ls: float) -> np.ndarray:
    """The kernel matrix between the rows of ``a`` and ``b`` (see the module docstring)."""
    if name == "additive":
        return (np.abs(a[:, None, :] - b[None, :, :]) < 1e-12).mean(-1)
    if name != "rbf":
        raise ValueError(f"surrogate kernel {name!r}: expected one of {KERNELS}")
    return np.exp(-((a[:, None, :] - b[None, :, :]) ** 2).sum(-1) / (2 * ls * ls))


def lcb(x: np.ndarray, measured: Sequence[int], y: Sequence[float], name: str, ls: float,
        kappa: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Posterior mean, sd (of the standardised targets) and ``mu - kappa * sd`` at every row of ``x`` given the
    targets ``y`` at rows ``measured``; measured rows get ``+inf`` acquisition."""
    idx = list(measured)
    yv = np.asarray(y, dtype=float)
    yn = (yv - yv.mean()) / (yv.std() or 1.0)
    k = kernel(x[idx], x[idx], name, ls) + JITTER * np.eye(len(idx))
    ks = kernel(x, x[idx], name, ls)
    solve = np.linalg.solve(k, ks.T).T
    mu = solve @ yn
    prior = float(kernel(x[:1], x[:1], name, ls)[0, 0])
    sd = np.sqrt(np.clip(prior - (solve * ks).sum(1), 1e-12, None))
    acq = mu - kappa * sd
    acq[idx] = np.inf
    return mu, sd, acq


def lcb_order(x: np.ndarray, lat: np.ndarray, start: int, budget: int, name: str, ls: float,
              kappa: float) -> list[int]:
    """Indices of the points a GP-LCB search over a known latency table measures, in order, from ``start``
    (``benchmarks/search_bound.py``'s idealised searchers)."""
    chosen = [start]
    while len(chosen) < min(budget, len(lat)):
        _, _, acq = lcb(x, chosen, np.log(lat[chosen]), name, ls, kappa)
        chosen.append(int(np.argmin(acq)))
    return chosen


def relative_log_latency(per_solution: Mapping[str, Mapping[str, float] | None]) -> dict[str, float]:
    """Each solution's log latency on one scale (module docstring); ``None`` / empty / non-finite latencies mark a
    failed solution, placed ``log 2`` above the slowest (0 when every solution failed)."""
    ok = {s: m for s, m in per_solution.items()
          if m and all(math.isfinite(v) and v > 0 for v in m.values())}
    common = set.intersection(*(set(m) for m in ok.values())) if ok else set()
    if common:  # the workloads every solution was measured on (the campaign's gate): the log of the mean there
        out = {s: math.log(sum(m[w] for w in common) / len(common)) for s, m in ok.items()}
    else:  # no workload in common: each workload's log latency against its geometric mean over the solutions
        logs: dict[str, list[float]] = {}
        for m in ok.values():
            for w, v in m.items():
                logs.setdefault(w, []).append(math.log(v))
        ref = {w: sum(v) / len(v) for w, v in logs.items()}
        out = {s: sum(math.log(v) - ref[w] for w, v in m.items()) / len(m) for s, m in ok.items()}
    worst = max(out.values(), default=0.0)
    for s in per_solution:
        if s not in out:
            out[s] = worst + FAILED_PENALTY
    return out


def measured_latencies(history: Iterable[Any]) -> dict[str, dict[str, float] | None]:
    """Per solution hash, its mean latency per workload over every run of it in ``history`` (candidate records:
    ``solution_hash``, ``per_workload_ms``, ``all_passed``); ``None`` for a solution with a failed run."""
    runs: dict[str, dict[str, list[float]] | None] = {}
    for r in history:
        if not r.all_passed or not r.per_workload_ms:
            runs[r.solution_hash] = None
            continue
        if r.solution_hash in runs and runs[r.solution_hash] is None:
            continue
        mine = runs.setdefault(r.solution_hash, {})
        assert mine is not None
        for w, v in r.per_workload_ms.items():
            mine.setdefault(w, []).append(v)
    return {s: None if m is None else {w: sum(v) / len(v) for w, v in m.items()} for s, m in runs.items()}


def propose_points(space: Mapping[str, Sequence[Any]], points: Sequence[Mapping[str, Any]],
                   measured: Mapping[int, float], count: int, name: str = "rbf", ls: float = 0.5,
                   kappa: float = 1.0) -> list[int]:
    """The ``count`` unmeasured indices of ``points`` with the lowest acquisition, best first, given the relative
    log latencies ``measured`` (point index -> target). With nothing measured, none (the generator's defaults
    start a campaign, not the surrogate)."""
    if not measured or count <= 0:
        return []
    x = positions(space, points)
    idx = list(measured)
    _, _, acq = lcb(x, idx, [measured[i] for i in idx], name, ls, kappa)
    order = [int(i) for i in np.argsort(acq, kind="stable") if math.isfinite(acq[i])]
    return order[:count]
