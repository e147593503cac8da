"""Latency statistics: official mean of per-trial medians, p95 and a bootstrap CI.

Official figure (FIB): per trial the median of its timed iterations; the workload latency is the mean
of those medians. Spread: the 95th percentile of all iterations, and a percentile-bootstrap 95 %
confidence interval of the official figure, resampling iterations within each trial (fixed seed).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kernelopt.data.records import LatencyStats, TimerName

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20260


def official_mean(trials: Sequence[Sequence[float]]) -> float:
    """Mean over trials of each trial's median iteration time."""
    return float(np.mean([np.median(np.asarray(t, dtype=np.float64)) for t in trials]))


def bootstrap_ci(trials: Sequence[Sequence[float]], *, resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED, level: float = 0.95) -> tuple[float, float]:
    """Percentile-bootstrap interval of :func:`official_mean`.

    Each resample draws every trial's iterations with replacement (trial structure kept), takes each
    trial's median and averages them.

    Args:
        trials: Per-trial iteration times.
        resamples: Number of bootstrap resamples.
        seed: RNG seed (results are reproducible).
        level: Coverage of the interval.

    Returns:
        ``(low, high)``.
    """
    rng = np.random.default_rng(seed)
    stats = np.zeros(resamples, dtype=np.float64)
    for t in trials:
        x = np.asarray(t, dtype=np.float64)
        idx = rng.integers(0, x.size, size=(resamples, x.size))
        stats += np.median(x[idx], axis=1)
    stats /= len(trials)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(low), float(high)


def summarize(trials: Sequence[Sequence[float]], timer: TimerName, *,
              resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> LatencyStats:
    """Latency statistics of one workload from its per-trial iteration times (ms).

    Raises:
        ValueError: No trials, or a trial without iterations.
    """
    if not trials or any(len(t) == 0 for t in trials):
        raise ValueError("summarize needs at least one trial and one iteration per trial")
    medians = [float(np.median(np.asarray(t, dtype=np.float64))) for t in trials]
    everything = np.concatenate([np.asarray(t, dtype=np.float64) for t in trials])
    low, high = bootstrap_ci(trials, resamples=resamples, seed=seed)
    return LatencyStats(
        mean_ms=float(np.mean(medians)),
        trial_medians_ms=medians,
        p95_ms=float(np.percentile(everything, 95)),
        ci95_low_ms=low,
        ci95_high_ms=high,
        timer=timer,
    )
