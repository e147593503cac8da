"""The GP surrogate over a seed's space (``kernelopt.generators.surrogate``) and the offline generator's
``model_guided`` direction."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_offline import ROOT, ctx, gen, params  # noqa: F401  (gen: the fixture)

from kernelopt.data.records import MODEL_GUIDED, CandidateRecord, Decision, Evidence
from kernelopt.generators import load_seeds
from kernelopt.generators.surrogate import (
    kernel,
    lcb_order,
    measured_latencies,
    positions,
    propose_points,
    relative_log_latency,
)


def test_additive_kernel_is_the_share_of_equal_levels() -> None:
    a = np.array([[0.0, 0.5, 1.0]])
    b = np.array([[0.0, 0.5, 0.0], [1.0, 1.0, 0.0], [0.0, 0.5, 1.0]])
    assert np.allclose(kernel(a, b, "additive", 0.0), [[2 / 3, 0.0, 1.0]])
    assert np.allclose(kernel(a, a, "rbf", 0.5), [[1.0]])
    assert kernel(a, b, "rbf", 0.5)[0, 1] < kernel(a, b, "rbf", 0.5)[0, 0] < 1.0
    with pytest.raises(ValueError, match="surrogate kernel 'matern'"):
        kernel(a, b, "matern", 0.5)


def test_additive_search_finds_a_separable_optimum_in_few_points() -> None:
    """Four parameters of five levels (625 points), latency a product of per-parameter factors: the additive model's
    search reaches the optimum long before a scan of the space would."""
    levels = [0.0, 0.25, 0.5, 0.75, 1.0]
    x = np.array([[a, b, c, d] for a in levels for b in levels for c in levels for d in levels])
    lat = np.exp(((x - np.array([0.25, 0.75, 0.0, 0.5])) ** 2).sum(1))
    order = lcb_order(x, lat, start=len(lat) - 1, budget=40, name="additive", ls=0.0, kappa=0.5)
    assert len(set(order)) == len(order) == 40 and order[0] == len(lat) - 1
    assert int(np.argmin(lat)) in order[:25]


def test_positions_scale_each_parameters_levels_to_the_unit_interval() -> None:
    space = {"A": [1, 2, 4], "B": ["x", "y"], "C": [7]}
    assert positions(space, [{"A": 4, "B": "x", "C": 7}, {"A": 2, "B": "y", "C": 7}]).tolist() == [[1.0, 0.0, 0.0],
                                                                                                  [0.5, 1.0, 0.0]]


def test_relative_log_latency_by_hand() -> None:
    """Two workloads every solution has (the gate) and one only ``a`` has: the log of the mean over the common pair
    (the campaign ranks by mean latency); a failed solution sits log 2 above the slowest. With no workload in
    common, each workload against its geometric mean over the solutions."""
    got = relative_log_latency({"a": {"g1": 1.0, "g2": 8.0, "w9": 100.0}, "b": {"g1": 4.0, "g2": 2.0},
                                "c": {"g1": 2.0, "g2": 16.0}, "d": None, "e": {"g1": float("nan"), "g2": 1.0}})
    assert got["a"] == pytest.approx(math.log(4.5)) and got["b"] == pytest.approx(math.log(3.0))
    assert got["c"] == pytest.approx(math.log(9.0))
    assert got["d"] == got["e"] == pytest.approx(math.log(18.0))
    assert relative_log_latency({"x": None}) == {"x": math.log(2)}
    apart = relative_log_latency({"a": {"u": 1.0, "v": 4.0}, "b": {"u": 4.0}, "c": {"v": 1.0}})
    # refs: u = log 2 (1 and 4), v = log 2 (4 and 1); a: (log 1 - log 2 + log 4 - log 2) / 2 = 0
    assert apart == pytest.approx({"a": 0.0, "b": math.log(2), "c": -math.log(2)})


def test_measured_latencies_average_runs_and_a_failed_run_marks_the_solution() -> None:
    def r(h: str, ms: dict[str, float], ok: bool = True) -> CandidateRecord:
        return CandidateRecord(run_id=f"{h}{len(ms)}{ok}", name=h, solution_hash=h, stage="gate", per_workload_ms=ms,
                               pass_count=len(ms) if ok else 0, workload_count=len(ms))
    got = measured_latencies([r("a", {"g": 1.0}), r("a", {"g": 3.0, "w": 5.0}), r("b", {"g": 2.0}),
                              r("b", {"g": 2.0}, ok=False), r("b", {"g": 9.0})])
    assert got == {"a": {"g": 2.0, "w": 5.0}, "b": None}


def test_propose_points_returns_unmeasured_points_best_first() -> None:
    space = {"A": list(range(9))}
    points = [{"A": a} for a in range(9)]
    measured = {0: 3.0, 4: 1.0, 8: 3.0}  # a valley around A=4
    got = propose_points(space, points, measured, 2, name="rbf", ls=0.2, kappa=0.0)
    assert got == [3, 5] or got == [5, 3]
    assert not set(propose_points(space, points, measured, 9)) & set(measured)
    assert len(propose_points(space, points, measured, 9)) == 6
    assert propose_points(space, points, {}, 3) == [] and propose_points(space, points, measured, 0) == []


def _history(seed, lat_of) -> list[CandidateRecord]:
    out = []
    for i, p in enumerate(seed.valid_points()[::3]):
        sol = seed.instantiate(p)
        ms = lat_of(p)
        out.append(CandidateRecord(run_id=f"r{i}", name=sol.name, solution_hash=sol.hash(), stage="gate",
                                   per_workload_ms={"g1": ms, "g2": 2 * ms}, pass_count=2, workload_count=2))
    return out


def test_offline_generator_model_guided_proposes_the_surrogates_best_unmeasured_points(gen):  # noqa: F811
    """A real seed's space (the rmsnorm fixture), a third of its points measured with latency growing with the distance
    from num_warps=2, ROWS=2: the proposals are unmeasured valid points, deterministic, ranked by the model, and the
    decision's ``surrogate`` row sets the model (kappa 0: the lowest predicted mean, next to the measured best)."""
    seed = load_seeds("rmsnorm_h4096", ROOT)[0]
    space = seed.spec.space

    def lat(p):
        return 1.0 + abs(space["num_warps"].index(p["num_warps"]) - 1) + abs(space["ROWS"].index(p["ROWS"]) - 1)
    hist = _history(seed, lat)
    best = min(hist, key=lambda r: r.per_workload_ms["g1"])
    parent = next(seed.instantiate(p) for p in seed.valid_points() if seed.instantiate(p).hash() == best.solution_hash)
    row = Evidence(kind="surrogate", subject=MODEL_GUIDED, value="rbf", detail={"name": "rbf", "ls": 0.4, "kappa": 0.0})
    dec = Decision(action="generate", reason="r", direction=MODEL_GUIDED, evidence=[row])
    sols = gen.propose(ctx(parent=parent, direction=MODEL_GUIDED, count=2, history=hist, decision=dec))
    again = gen.propose(ctx(parent=parent, direction=MODEL_GUIDED, count=2, history=hist, decision=dec))
    assert [s.hash() for s in sols] == [s.hash() for s in again] and len(sols) == 2
    measured = {r.solution_hash for r in hist}
    assert all(s.hash() not in measured and seed.valid(params(s)) for s in sols)
    assert lat(params(sols[0])) == min(lat(p) for p in seed.valid_points()
                                       if seed.instantiate(p).hash() not in measured)
    # without its own measurement in the history the parent's seed has nothing to fit on: no proposal
    assert gen.propose(ctx(parent=parent, direction=MODEL_GUIDED, count=2,
                           history=[r for r in hist if r.solution_hash != parent.hash()])) == []


def test_neighbours_row_picks_the_rounds_extra_candidates_nearest_first_by_the_model(gen):  # noqa: F811
    """A decision whose ``surrogate`` row says ``neighbours``: the direction's own move first, then the unseen points
    nearest the move (fewest level steps), the model's best first - not the random walk's picks."""
    seed = load_seeds("rmsnorm_h4096", ROOT)[0]
    space = seed.spec.space
    parent = seed.instantiate(seed.valid_points()[0])
    moved = seed.move_points(params(parent), seed.spec.directions["more_rows"].moves)[0]
    hist = [r for r in _history(seed, lambda p: 1.0 + space["num_warps"].index(p["num_warps"]))  # fewer warps: faster
            if r.solution_hash not in (seed.instantiate(moved).hash(), parent.hash())]
    hist.append(CandidateRecord(run_id="p", name=parent.name, solution_hash=parent.hash(), stage="gate",
                                per_workload_ms={"g1": 9.0, "g2": 18.0}, pass_count=2, workload_count=2))
    row = Evidence(kind="surrogate", subject=MODEL_GUIDED, value="rbf",
                   detail={"name": "rbf", "ls": 0.5, "kappa": 0.0, "neighbours": True})
    dec = Decision(action="generate", reason="r", direction="more_rows", evidence=[row])
    sols = gen.propose(ctx(parent=parent, direction="more_rows", count=3, history=hist, decision=dec))
    plain = gen.propose(ctx(parent=parent, direction="more_rows", count=3, history=hist))
    measured = {r.solution_hash for r in hist}
    assert len(sols) == 3 and not {s.hash() for s in sols} & measured
    assert params(sols[0]) == params(plain[0]) == moved  # the move itself, as without the row

    def steps(p):
        return sum(abs(space[k].index(p[k]) - space[k].index(moved[k])) for k in space)
    free = [p for p in seed.valid_points() if seed.instantiate(p).hash() not in measured | {sols[0].hash()}]
    radius = sorted(steps(p) for p in free)[1]
    assert all(steps(params(s)) <= radius for s in sols[1:])
    assert [params(s)["num_warps"] for s in sols[1:]] == sorted(params(s)["num_warps"] for s in sols[1:])
