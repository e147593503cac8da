"""Campaign comparison rows (the agent-mode ablation table)."""

from __future__ import annotations

from tracking_helpers import DEFINITION, make_result, make_solution, params


def _campaign(store, mode: str, lats: list[list[float | None]], tokens: int = 0, cost: float | None = None):
    camp = store.start_campaign(DEFINITION, {"agent": {"mode": mode}, "generator": {"name": "openai"}}, {})
    for i, lat in enumerate(lats):
        sol = make_solution(f"{mode}-{i}", block=16 * (i + 1) + (1000 if mode == "full_agent" else 0))
        metrics = {"llm_input_tokens": float(tokens), "llm_output_tokens": float(tokens)}
        if cost is not None:
            metrics["llm_cost_usd"] = cost
        store.log_candidate(camp, sol, make_result(sol, lat), stage="sweep", params=params(), metrics=metrics)
    return camp


def test_compare_campaigns_rows(store):
    full = _campaign(store, "full_agent", [[4.0, 4.0], [None, 3.0], [3.0, 3.0]], tokens=100, cost=0.01)
    assisted = _campaign(store, "agent_assisted", [[2.0, 2.0], [1.0, 1.0]], tokens=50)
    rows = {r["agent_mode"]: r for r in store.compare_campaigns([full, assisted])}
    a, f = rows["agent_assisted"], rows["full_agent"]
    assert a["best_latency_ms"] == 1.0 and f["best_latency_ms"] == 3.0
    assert a["candidates_to_target"] == 2 and f["candidates_to_target"] is None  # never within 5 % of 1.0
    assert a["candidates"] == 2 and f["candidates"] == 3
    assert abs(f["pass_rate"] - 2 / 3) < 1e-9 and a["pass_rate"] == 1.0
    assert f["tokens"] == 600 and a["tokens"] == 200
    assert abs(f["cost_usd"] - 0.03) < 1e-9 and a["cost_usd"] is None
    assert a["generator"] == "openai" and a["stage_basis"] == "full"


def test_an_adopted_run_brings_no_tokens_of_its_own(store):
    """An adopted run is a copy of an earlier campaign's measurement, its LLM usage included: the compare table showed
    the donor's tokens and cost for a campaign whose own requests never counted."""
    donor = _campaign(store, "full_agent", [[2.0, 2.0]], tokens=100, cost=0.01)
    later = _campaign(store, "agent_assisted", [[3.0, 3.0]], tokens=10)
    store.adopt_candidate(later, store.candidate_runs(donor)[0].info.run_id)
    rows = {r["campaign"]: r for r in store.compare_campaigns([donor, later])}
    assert rows[donor]["tokens"] == 200 and rows[later]["tokens"] == 20
    assert rows[later]["cost_usd"] is None and rows[later]["runs"] == 2


def test_compare_counts_the_usage_of_failed_proposals(store):
    """Replies that gave no candidate (e.g. cut at max_tokens) cost tokens that the comparison left out."""
    camp = _campaign(store, "full_agent", [[2.0, 2.0]], tokens=10, cost=0.5)
    store.log_batch(camp, metrics={"llm_failed_input_tokens": 100.0, "llm_failed_output_tokens": 1000.0,
                                   "llm_failed_cost_usd": 0.25}, step=1)
    store.log_batch(camp, metrics={"llm_failed_input_tokens": 1.0, "llm_failed_output_tokens": 2.0}, step=4)
    (row,) = store.compare_campaigns([camp])
    assert row["tokens"] == 20 + 1103 and abs(row["cost_usd"] - 0.75) < 1e-9
