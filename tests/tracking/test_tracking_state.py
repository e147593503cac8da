"""load_state rebuilds the controller's view from the store alone; decisions survive restarts."""

from __future__ import annotations

import time

import pytest
from tracking_helpers import (
    DEFINITION,
    UUIDS,
    make_result,
    make_solution,
    params,
)

from kernelopt.data import CandidateRecord, Decision, Evidence
from kernelopt.tracking import TrackingStore
from kernelopt.tracking.summary import percentile


def _expected(run_id, sol, res, stage, prm) -> CandidateRecord:
    lats = [r.latency.mean_ms for r in res.results if r.passed]
    rec_params = dict(prm)
    rec_params.update({"seed": "rows", "seed_params": sol.model_extra["kernelopt"]["params"]})
    return CandidateRecord(
        run_id=run_id, name=sol.name, solution_hash=sol.hash(), stage=stage,
        parent_run_id=prm.get("parent_run_id"), direction=prm.get("direction"), params=rec_params,
        pass_count=res.pass_count, workload_count=len(res.results), mean_latency_ms=res.mean_latency_ms(),
        p95_latency_ms=percentile(lats, 95) if res.all_passed else None,
        per_workload_ms={r.uuid: r.latency.mean_ms for r in res.results if r.passed},
        status="ALL_PASSED" if res.all_passed else "FAILED", start_time=0.0, failure=res.failure_line())


def test_load_state_reproduces_logged_candidates(store):
    gate, full = UUIDS[:1], UUIDS
    camp = store.start_campaign(DEFINITION, {"gate_workloads": gate, "all_workloads": full}, {})
    t0 = time.time()
    plan = [  # (solution, latencies, stage, params)
        (make_solution("a", 64), [1.5], "gate", params()),
        (make_solution("b", 32), [None], "gate", params(direction="warps", band="large")),
        (make_solution("a", 64), [1.5, 2.5, 3.5], "sweep", params(extra={"x": [1, 2]}, score=0.25)),
        (make_solution("a", 64), [1.4, 2.4, 3.6], "repeat", params(repeat=2)),
    ]
    expected = []
    for sol, lats, stage, prm in plan:
        res = make_result(sol, lats)
        run_id = store.log_candidate(camp, sol, res, stage=stage, params=prm)
        expected.append(_expected(run_id, sol, res, stage, prm))
    expected[1] = expected[1].model_copy(update={"parent_run_id": None})
    state = TrackingStore(store.tracking_uri).load_state(camp)  # a fresh process would do this
    assert state.campaign_run_id == camp and state.definition == DEFINITION
    assert state.gate_workloads == gate and state.all_workloads == full
    assert state.champion is None and state.decisions == []
    assert 0 < state.elapsed_s < time.time() - t0 + 60
    got = [c.model_copy(update={"start_time": 0.0}) for c in state.candidates]
    assert got == expected
    assert all(abs(c.start_time - t0) < 60 for c in state.candidates)
    assert state.candidates[2].params["extra"] == {"x": [1, 2]} and state.candidates[2].params["score"] == 0.25
    assert state.candidates[0].all_passed and not state.candidates[1].all_passed
    assert state.candidates[3].p95_latency_ms == pytest.approx(2.4 + 0.9 * 1.2)


def test_candidates_of_other_campaigns_are_not_mixed_in(store):
    a = store.start_campaign(DEFINITION, {}, {})
    b = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution("a")
    ra = store.log_candidate(a, sol, make_result(sol, [1.0]), stage="gate", params=params())
    rb = store.log_candidate(b, sol, make_result(sol, [1.1]), stage="gate", params=params())
    assert [c.run_id for c in store.load_state(a).candidates] == [ra]
    assert [c.run_id for c in store.load_state(b).candidates] == [rb]


def test_decisions_survive_a_restart(store):
    camp = store.start_campaign(DEFINITION, {}, {})
    d1 = Decision(action="generate", reason="start", count=4, direction="tile")
    d2 = Decision(action="gate", reason="gate new", candidate_run_ids=["r1", "r2"],
                  evidence=[Evidence(kind="noise_floor", subject="r1", value=0.02, detail={"n": 3})])
    assert store.log_decision(camp, d1) == 1
    assert store.log_decision(camp, d2) == 2
    restarted = TrackingStore(store.tracking_uri)  # new process: empty local cache
    d3 = Decision(action="stop", reason="budget spent")
    assert restarted.log_decision(camp, d3) == 3
    assert restarted.load_state(camp).decisions == [d1, d2, d3]
    assert store.load_decisions(camp) == [d1, d2, d3]
    hist = store.client.get_metric_history(camp, "decisions")
    assert sorted((m.step, m.value) for m in hist) == [(0, 1.0), (1, 2.0), (2, 3.0)]
    with pytest.raises(TypeError, match="expected a Decision"):
        store.log_decision(camp, {"action": "stop"})  # type: ignore[arg-type]


def test_load_state_of_unknown_run_is_a_clear_error(store):
    with pytest.raises(ValueError, match="not found"):
        store.load_state("a" * 32)
    camp = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution()
    cand = store.log_candidate(camp, sol, make_result(sol, [1.0]), stage="gate", params=params())
    with pytest.raises(ValueError, match="not a kernelopt campaign run"):
        store.load_state(cand)
