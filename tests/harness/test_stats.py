"""Latency statistics: mean of trial medians, p95, bootstrap CI."""

from __future__ import annotations

import numpy as np
import pytest

from kernelopt.harness.stats import bootstrap_ci, summarize


def test_official_mean_is_mean_of_trial_medians():
    st = summarize([[1.0, 2.0, 100.0], [3.0, 4.0, 5.0]], "cpu_wall")
    assert st.trial_medians_ms == [2.0, 4.0]
    assert st.mean_ms == 3.0
    assert st.p95_ms == pytest.approx(np.percentile([1, 2, 100, 3, 4, 5], 95))
    assert st.timer == "cpu_wall"


def test_bootstrap_ci_contains_the_mean_and_is_reproducible():
    rng = np.random.default_rng(1)
    trials = [list(10 + rng.normal(0, 1, 50)) for _ in range(3)]
    st = summarize(trials, "cuda_event")
    assert st.ci95_low_ms < st.mean_ms < st.ci95_high_ms
    assert st.ci95_high_ms - st.ci95_low_ms < 2.0
    assert bootstrap_ci(trials) == bootstrap_ci(trials)


def test_constant_samples_give_a_degenerate_interval():
    st = summarize([[2.0] * 5, [2.0] * 5], "cupti")
    assert st.ci95_low_ms == st.ci95_high_ms == st.mean_ms == 2.0


def test_empty_input_is_an_error():
    with pytest.raises(ValueError):
        summarize([], "cpu_wall")
    with pytest.raises(ValueError):
        summarize([[1.0], []], "cpu_wall")
