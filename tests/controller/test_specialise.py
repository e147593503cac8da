"""Band specialisation: per-band winners that differ by more than the noise floor give one
``dispatch`` generation decision (specialists, edges, estimated gain), once; otherwise nothing."""

from __future__ import annotations

import pytest

from kernelopt.analysis.campaign_analysis import analyse_operator
from kernelopt.controller import Budget, Rules, decide
from kernelopt.controller.selection import group_by_solution
from kernelopt.controller.specialise import plan_dispatch
from kernelopt.data.records import CampaignState, CandidateRecord, ChampionInfo, Decision
from kernelopt.operators import load_operator

OP = load_operator("gemm_n4096_k4096")
UUIDS = [w.uuid for w in OP.workloads]
M = {w.uuid: w.axes["M"] for w in OP.workloads}
RULES = Rules(repeats=1)
BUDGET = Budget(max_rounds=20, patience=20, max_candidates=50)


def _sweep(rid: str, h: str, lat: dict[str, float], t: float) -> list[CandidateRecord]:
    mean = sum(lat.values()) / len(lat)
    return [CandidateRecord(run_id=f"g{rid}", name=f"sol_{rid}", solution_hash=h, stage="gate", pass_count=3,
                            workload_count=3, mean_latency_ms=mean, status="ALL_PASSED", start_time=t,
                            params={"directions": ["more_warps"]}),
            CandidateRecord(run_id=f"s{rid}", name=f"sol_{rid}", solution_hash=h, stage="sweep",
                            pass_count=len(lat), workload_count=len(lat), mean_latency_ms=mean, per_workload_ms=lat,
                            status="ALL_PASSED", start_time=t + 0.5, params={"directions": ["more_warps"]})]


def _state(a: dict[str, float], b: dict[str, float], decisions: list[Decision] | None = None) -> CampaignState:
    analysis = analyse_operator(OP.definition, OP.workloads, OP.path, a, "NVIDIA H200")
    cands = _sweep("a", "ha", a, 1) + _sweep("b", "hb", b, 3)
    mean_a = sum(a.values()) / len(a)
    return CampaignState(campaign_run_id="camp", definition=OP.name, candidates=cands,
                         decisions=decisions or [Decision(action="generate", reason="r", direction="baseline"),
                                                 Decision(action="promote", reason="r", candidate_run_ids=["ga"])],
                         champion=ChampionInfo(run_id="ga", mean_latency_ms=mean_a),
                         gate_workloads=UUIDS[:3], all_workloads=UUIDS, analysis=analysis)


def _small_vs_large(split: int = 64, factor: float = 2.0) -> tuple[dict[str, float], dict[str, float]]:
    base = {u: 0.01 + M[u] * 1e-4 for u in UUIDS}
    a = dict(base)  # a: best at large M
    b = {u: (v / factor if M[u] <= split else v * 1.05) for u, v in base.items()}  # b: wins small M
    return a, b


def test_bands_disagree_gives_one_dispatch_decision():
    a, b = _small_vs_large()
    st = _state(a, b)
    d = decide(st, BUDGET, RULES)
    assert d.action == "generate" and d.direction == "dispatch" and d.count == 1
    plan = next(e for e in d.evidence if e.kind == "dispatch")
    assert d.candidate_run_ids == plan.detail["specialists"]
    assert set(d.candidate_run_ids) == {"ga", "gb"} and d.candidate_run_ids[0] == "gb"  # small M first
    assert plan.detail["axis"] == "M" and len(plan.detail["uppers"]) == len(d.candidate_run_ids) - 1
    # the composite (b below the edge, a above) against the best single solution, recomputed by hand
    edge = plan.detail["uppers"][0]
    composite = sum(b[u] if M[u] <= edge else a[u] for u in UUIDS)
    best_single = min(sum(a.values()), sum(b.values()))
    assert plan.value == pytest.approx(1 - composite / best_single)
    assert plan.detail["composite_ms"] == pytest.approx(composite)
    assert "dispatch over M" in d.reason
    # once per set of specialists
    again = decide(_state(a, b, decisions=st.decisions + [d]), BUDGET, RULES)
    assert again.direction != "dispatch"


def test_no_dispatch_below_the_noise_floor_or_with_one_winner():
    a, b = _small_vs_large(factor=1.005)  # b wins small M by 0.5 %: under the 2 % noise floor
    assert decide(_state(a, b), BUDGET, RULES).direction != "dispatch"
    a, _ = _small_vs_large()
    slower = {u: v * 1.1 for u, v in a.items()}  # one solution wins every band
    st = _state(a, slower)
    assert plan_dispatch(group_by_solution(st.candidates), st.analysis, UUIDS, 0.02, RULES, []) is None


def test_no_dispatch_without_analysis_or_with_one_swept_solution():
    a, b = _small_vs_large()
    st = _state(a, b)
    assert decide(st.model_copy(update={"analysis": None}), BUDGET, RULES).direction != "dispatch"
    only_a = st.model_copy(update={"candidates": st.candidates[:2]})
    assert plan_dispatch(group_by_solution(only_a.candidates), st.analysis, UUIDS, 0.02, RULES, []) is None
