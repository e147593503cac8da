"""promotion.gate(), the noise floor and the representative-workload choice."""

from __future__ import annotations

import math

import pytest
from ctl_states import rec

from kernelopt.controller import Rules, gate, group_by_solution, noise_floor
from kernelopt.controller.workloads import representative, select_workloads
from kernelopt.data.records import ChampionInfo
from kernelopt.data.workload import Workload


def finalist(*means, p95=None, gate_passed=True, per_workload=None):
    runs = [rec("g", "a", "gate", 1.0 if gate_passed else None, passed=None if gate_passed else 1)]
    for i, m in enumerate(means):
        stage = "sweep" if i == 0 else "repeat"
        runs.append(rec(f"f{i}", "a", stage, m, p95=p95, passed=None if m is not None else 2,
                        per_workload=per_workload))
    (g,) = group_by_solution(runs)
    return g


def verdict(evidence, kind):
    return next(e for e in evidence if e.kind == kind)


def test_no_champion_needs_repeats_and_all_passed():
    ok, ev = gate(finalist(2.0, 2.0), None, Rules(repeats=2))
    assert ok and verdict(ev, "latency").detail["champion"] is None
    ok, ev = gate(finalist(2.0), None, Rules(repeats=2))
    assert not ok and verdict(ev, "repeats").detail == {"required": 2, "ok": False}


def test_a_failed_workload_in_any_run_fails_the_gate():
    ok, ev = gate(finalist(2.0, None), None, Rules(repeats=2))
    assert not ok and verdict(ev, "pass_count").detail["failed_runs"] == ["f1"]
    # passes over the workload evaluations of every run (gate and full): not a count of distinct workloads
    assert "evaluations" in verdict(ev, "pass_count").detail and "workloads" not in verdict(ev, "pass_count").detail
    ok, ev = gate(finalist(2.0, 2.0, gate_passed=False), None, Rules(repeats=2))
    assert not ok and verdict(ev, "pass_count").detail["failed_runs"] == ["g"]


@pytest.mark.parametrize("mean,nf,expected", [
    (1.90, 0.02, True),    # 5 % gain > 2 % floor
    (1.97, 0.02, False),   # 1.5 % gain < 2 % floor
    (1.97, 0.001, True),   # 1.5 % gain > max(0.1 % floor, 1 % minimum)
    (1.99, 0.001, False),  # 0.5 % gain < 1 % minimum improvement
    (2.10, 0.0, False),    # slower
])
def test_latency_must_beat_the_champion_beyond_the_threshold(mean, nf, expected):
    champ = ChampionInfo(run_id="c", mean_latency_ms=2.0)
    ok, ev = gate(finalist(mean, mean), champ, Rules(repeats=2), noise_floor=nf)
    lat = verdict(ev, "latency")
    assert ok is expected and lat.detail["ok"] is expected
    assert lat.detail["threshold"] == pytest.approx(max(nf, 0.01))
    assert lat.detail["gain"] == pytest.approx((2.0 - mean) / 2.0)


def test_explicit_min_improvement_raises_the_bar():
    champ = ChampionInfo(run_id="c", mean_latency_ms=2.0)
    assert gate(finalist(1.90, 1.90), champ, Rules(repeats=2, min_improvement=0.04), noise_floor=0.0)[0]
    assert not gate(finalist(1.90, 1.90), champ, Rules(repeats=2, min_improvement=0.06), noise_floor=0.0)[0]


def test_p95_not_worse_beyond_tolerance():
    champ = ChampionInfo(run_id="c", mean_latency_ms=2.0, p95_latency_ms=2.0)
    rules = Rules(repeats=2, p95_tolerance=0.05)
    assert gate(finalist(1.8, 1.8, p95=2.09), champ, rules, noise_floor=0.0)[0]
    ok, ev = gate(finalist(1.8, 1.8, p95=2.2), champ, rules, noise_floor=0.0)
    assert not ok and verdict(ev, "p95").detail["ok"] is False


def test_champion_compared_on_the_candidates_workloads_when_known():
    champ = ChampionInfo(run_id="c", mean_latency_ms=10.0, per_workload_ms={"u1": 2.0, "u2": 2.0, "u3": 50.0})
    cand = finalist(1.9, 1.9, per_workload={"u1": 1.9, "u2": 1.9})
    ok, ev = gate(cand, champ, Rules(repeats=2), noise_floor=0.0)
    assert ok and verdict(ev, "latency").detail["basis"] == "same_workloads"
    assert verdict(ev, "latency").detail["champion_mean_ms"] == pytest.approx(2.0)
    partial = finalist(1.9, 1.9, per_workload={"u1": 1.9, "u9": 1.9})
    _, ev = gate(partial, champ, Rules(repeats=2), noise_floor=0.0)
    assert verdict(ev, "latency").detail["basis"] == "overall_mean"
    same = finalist(9.0, 9.0, per_workload={"u1": 1.9, "u2": 1.9, "u3": 23.2})  # registered mean: over repeats
    ok, ev = gate(same, champ, Rules(repeats=2), noise_floor=0.0)
    assert ok and verdict(ev, "latency").detail["champion_mean_ms"] == 10.0


def test_noise_floor_is_pooled_relative_std_over_repeated_solutions():
    runs = [rec("a0", "a", "sweep", 1.0), rec("a1", "a", "repeat", 1.1), rec("a2", "a", "repeat", 0.9),
            rec("b0", "b", "sweep", 4.0), rec("b1", "b", "repeat", 4.4),
            rec("c0", "c", "sweep", 9.0)]  # single run: no information
    nf, ev = noise_floor(group_by_solution(runs), default=0.5)
    # a: rel devs 0, .1, -.1 (dof 2); b: mean 4.2, devs +-0.2/4.2 (dof 1)
    expected = math.sqrt((0.01 + 0.01 + 2 * (0.2 / 4.2) ** 2) / 3)
    assert nf == pytest.approx(expected)
    assert ev.detail == {"source": "repeats", "solutions": 2, "dof": 3}


def test_noise_floor_default_without_repeats_and_failed_runs_ignored():
    runs = [rec("a0", "a", "sweep", 1.0), rec("b0", "b", "sweep", 1.0), rec("b1", "b", "repeat", None, passed=1)]
    nf, ev = noise_floor(group_by_solution(runs), default=0.03)
    assert nf == 0.03 and ev.detail["source"] == "default"


def _wls(*sizes):
    return [Workload(uuid=f"u{i:02d}", axes={"batch": s}) for i, s in enumerate(sizes)]


def test_representative_smallest_median_largest():
    wls = _wls(64, 1, 7, 8192, 16, 512, 3)
    assert [w.axes["batch"] for w in representative(wls, 3)] == [1, 16, 8192]
    assert [w.axes["batch"] for w in representative(wls, 2)] == [1, 8192]
    assert [w.axes["batch"] for w in representative(wls, 1)] == [16]
    assert len(representative(wls, 10)) == 7
    assert representative(wls, 3) == representative(list(reversed(wls)), 3)


def test_representative_uses_the_total_axis_product():
    wls = [Workload(uuid="a", axes={"b": 1, "t": 100}), Workload(uuid="b", axes={"b": 50, "t": 1}),
           Workload(uuid="c", axes={"b": 2, "t": 2})]
    assert [w.uuid for w in representative(wls, 2)] == ["c", "a"]


def test_select_workloads_subset_and_limit():
    wls = _wls(64, 1, 7, 8192)
    assert [w.uuid for w in select_workloads(wls, limit=2)] == ["u01", "u02"]
    assert [w.uuid for w in select_workloads(wls, wanted=["u03", "u00"])] == ["u00", "u03"]
    with pytest.raises(ValueError, match="u99"):
        select_workloads(wls, wanted=["u99"])
