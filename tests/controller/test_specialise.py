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


@pytest.mark.parametrize("with_reps", [True, False])
def test_band_rounds_are_gated_on_the_band_and_band_winners_earn_a_sweep(with_reps):
    from kernelopt.controller.evidence import band_gate

    rules = RULES.model_copy(update={"band_gate_with_representatives": with_reps})
    a = {u: 0.01 + M[u] * 1e-4 for u in UUIDS}
    st = _state(a, {u: v * 1.2 for u, v in a.items()})  # b slower everywhere: no dispatch
    d = decide(st, BUDGET, rules)
    assert d.action == "generate" and d.band is not None and d.direction != "dispatch"
    band = next(b for b in st.analysis["bands"]["bands"] if b["name"] == d.band)
    own = band_gate(st.analysis, d.band, UUIDS, RULES.gate_size)
    assert own and set(own) <= set(band["workloads"]) and len(own) <= RULES.gate_size
    if with_reps:  # the default: the band's gate and the campaign's, as one set in campaign order
        assert d.workloads == [u for u in UUIDS if u in set(own) | set(st.gate_workloads)]
        assert set(own) - set(st.gate_workloads), "the band brings workloads the campaign's gate lacks"
        assert f"gated on {len(own)} of its workloads and the campaign's gate: {len(d.workloads)} in all" in d.reason
    else:
        assert d.workloads == own
        assert f"gated on {len(own)} of its workloads)" in d.reason
    # a new candidate gated on those workloads only: 10 % faster than the best swept solution there
    # (slower than the best's usual gate mean) -> it is swept
    gate_lat = {u: a[u] * 0.9 for u in d.workloads}
    new = CandidateRecord(run_id="gc", name="sol_c", solution_hash="hc", stage="gate", pass_count=len(gate_lat),
                          workload_count=len(gate_lat), mean_latency_ms=sum(gate_lat.values()) / len(gate_lat),
                          per_workload_ms=gate_lat, status="ALL_PASSED", start_time=9, parent_run_id="ga")
    nxt = decide(st.model_copy(update={"candidates": st.candidates + [new], "decisions": st.decisions + [d]}),
                 BUDGET, rules)
    assert nxt.action == "sweep" and nxt.candidate_run_ids == ["gc"]
    # 10 % slower there -> not swept
    slow = new.model_copy(update={"per_workload_ms": {u: a[u] * 1.1 for u in d.workloads},
                                  "mean_latency_ms": sum(a[u] * 1.1 for u in d.workloads) / len(d.workloads)})
    nxt = decide(st.model_copy(update={"candidates": st.candidates + [slow], "decisions": st.decisions + [d]}),
                 BUDGET, rules)
    assert nxt.action != "sweep"


def test_band_gate_spreads_over_distinct_sizes():
    from kernelopt.controller.evidence import band_gate

    dec = load_operator("gdn_decode_qk4_v8_d128_k_last")
    uuids = [w.uuid for w in dec.workloads]
    batch = {w.uuid: w.axes["batch_size"] for w in dec.workloads}
    an = analyse_operator(dec.definition, dec.workloads, dec.path, {u: 0.001 * batch[u] for u in uuids},
                          "NVIDIA H200")
    got = {b["name"]: [batch[u] for u in band_gate(an, b["name"], uuids, 3)] for b in an["bands"]["bands"]}
    assert got == {"batch_size 1-16": [1, 8, 16], "batch_size 32-48": [32, 48], "batch_size 64": [64]}
    assert band_gate(an, "batch_size 64", [u for u in uuids if batch[u] == 64], 3) == []  # the whole campaign
    assert band_gate(None, "x", uuids, 3) == [] and band_gate(an, "no such band", uuids, 3) == []


def test_a_dispatch_is_never_the_parent_of_a_tuning_round():
    a, b = _small_vs_large()
    st = _state(a, b)
    d = decide(st, BUDGET, RULES)
    assert d.direction == "dispatch"
    # the dispatch was built, swept and is now the best (and the champion): the next tuning round
    # starts from a specialist, not from the composite
    composite = {u: min(a[u], b[u]) for u in UUIDS}
    runs = _sweep("d", "hd", composite, 7)
    runs = [r.model_copy(update={"direction": "dispatch"}) for r in runs]
    after = st.model_copy(update={
        "candidates": st.candidates + runs,
        "decisions": st.decisions + [d, Decision(action="promote", reason="r", candidate_run_ids=["sd"])],
        "champion": ChampionInfo(run_id="sd", mean_latency_ms=sum(composite.values()) / len(composite))})
    nxt = decide(after, BUDGET, RULES)
    assert nxt.action == "generate" and nxt.direction != "dispatch"
    assert nxt.parent_run_id in {"ga", "gb"}


def test_the_contest_objective_dispatches_for_many_short_wins_that_summed_latency_hides():
    """GDN prefill's case on the H200: one solution is 1.7x faster on the short calls, whose latencies are
    a small part of the sum. By summed latency the gain is under the noise floor; by the contest's mean of
    per-workload speedups it is well above it."""
    a, b = _small_vs_large(split=32, factor=1.7)
    st = _state(a, b)
    groups = group_by_solution(st.candidates)
    assert plan_dispatch(groups, st.analysis, UUIDS, 0.02, RULES, []) is None
    contest = Rules(repeats=1, dispatch_objective="mean_speedup")
    plan = plan_dispatch(groups, st.analysis, UUIDS, 0.02, contest, [])
    assert plan is not None and plan.detail["objective"] == "mean_speedup"
    assert plan.detail["specialists"] == ["gb", "ga"]  # b below the edge
    edge = plan.detail["uppers"][0]
    single = a if sum(a.values()) <= sum(b.values()) else b
    composite = {u: b[u] if M[u] <= edge else a[u] for u in UUIDS}
    assert plan.value == pytest.approx(sum(single[u] / composite[u] for u in UUIDS) / len(UUIDS) - 1)
    assert plan.value > 0.1
    with pytest.raises(ValueError, match="dispatch_objective"):
        Rules(dispatch_objective="geomean")


# --------------------------------------------------------------------------- nested split (GDN prefill's shape)
PRE = load_operator("gdn_prefill_qk4_v8_d128_k_last")
PRE_UUIDS = [w.uuid for w in PRE.workloads]
TOK = {w.uuid: w.axes["total_seq_len"] for w in PRE.workloads}
SEQS = {w.uuid: w.axes["num_seqs"] for w in PRE.workloads}


def _prefill_state(lat: dict[str, dict[str, float]]) -> CampaignState:
    """Full sweeps of the named solutions (``lat``: name -> UUID -> ms) on every prefill workload, the fastest
    (summed latency) the champion."""
    names = sorted(lat, key=lambda n: sum(lat[n].values()))
    analysis = analyse_operator(PRE.definition, PRE.workloads, PRE.path, lat[names[0]], "NVIDIA H200")
    cands = [r for i, n in enumerate(names) for r in _sweep(n, f"h{n}", lat[n], 1 + 2 * i)]
    return CampaignState(campaign_run_id="camp", definition=PRE.name, candidates=cands,
                         decisions=[Decision(action="generate", reason="r", direction="baseline"),
                                    Decision(action="promote", reason="r", candidate_run_ids=[f"g{names[0]}"])],
                         champion=ChampionInfo(run_id=f"g{names[0]}",
                                               mean_latency_ms=sum(lat[names[0]].values()) / len(PRE_UUIDS)),
                         gate_workloads=PRE_UUIDS[:3], all_workloads=PRE_UUIDS, analysis=analysis)


def _walk_tiles(wide_gain: float = 0.9) -> dict[str, dict[str, float]]:
    """'narrow' wins everywhere except the long calls of many sequences, where 'wide' is ``wide_gain`` of it
    (and 10 % slower at few sequences), as the state walk's V tiles behaved on the H200 (calls AY, BC)."""
    narrow = {u: 0.01 + TOK[u] * 6e-5 for u in PRE_UUIDS}
    wide = {u: v * (wide_gain if TOK[u] >= 2857 and SEQS[u] >= 13 else 1.1) for u, v in narrow.items()}
    return {"narrow": narrow, "wide": wide}


def test_a_band_whose_workloads_disagree_along_another_axis_splits_behind_a_nested_dispatch():
    st = _prefill_state(_walk_tiles())
    assert st.analysis["bands"]["dispatch_axes"] == ["total_seq_len", "len_cu_seqlens"]  # not num_seqs: optional
    d = decide(st, BUDGET, RULES)
    assert d.action == "generate" and d.direction == "dispatch"
    plan = next(e for e in d.evidence if e.kind == "dispatch").detail
    below = max(b["high"] for b in st.analysis["bands"]["bands"] if b["high"] < 2857)
    # every band below the long one merges into 'narrow'; the long band splits between 5 and 13 sequences
    assert plan["axis"] == "total_seq_len" and plan["uppers"] == [below] == [2284]
    assert d.candidate_run_ids == ["gnarrow", "gnarrow", "gwide"]
    assert plan["nested"][0] is None and plan["nested"][-1] == {"axis": "len_cu_seqlens", "uppers": [6]}
    assert "split again over len_cu_seqlens at [6]" in d.reason
    # the estimated gain is the composite's, recomputed by hand
    wide, narrow = _walk_tiles()["wide"], _walk_tiles()["narrow"]
    composite = sum(wide[u] if TOK[u] >= 2857 and SEQS[u] >= 13 else narrow[u] for u in PRE_UUIDS)
    assert plan["composite_ms"] == pytest.approx(composite)
    assert next(e for e in d.evidence if e.kind == "dispatch").value == pytest.approx(
        1 - composite / min(sum(narrow.values()), sum(wide.values())))


def test_no_split_below_the_noise_floor_or_for_one_workload_a_side():
    assert plan_dispatch(*_plan_args(_walk_tiles(wide_gain=0.999))) is None  # 0.1 % on the band: noise
    lat = _walk_tiles()
    only = next(u for u in PRE_UUIDS if SEQS[u] >= 13)  # 'wide' wins a single workload: never a side on its own
    lat["wide"] = {u: v * (0.5 if u == only else 1.1) for u, v in lat["narrow"].items()}
    assert plan_dispatch(*_plan_args(lat)) is None


def _plan_args(lat: dict[str, dict[str, float]]) -> tuple:
    st = _prefill_state(lat)
    return group_by_solution(st.candidates), st.analysis, PRE_UUIDS, 0.02, RULES, []


def test_the_planned_nested_dispatch_is_the_cli_composition():
    """compose_planned of a nested plan = `kernelopt dispatch` run twice (the retained GDN prefill dispatch)."""
    from pathlib import Path

    from kernelopt.data import load_solution
    from kernelopt.data.records import Evidence
    from kernelopt.generators.dispatch import compose_planned
    from kernelopt.generators.seeds import load_seed

    seeds = Path(PRE.path) / "solutions" / "seeds"
    wy3f = load_seed(seeds / "gdn_prefill_chunked_wy3f")
    leaves = [load_seed(seeds / "gdn_prefill_recurrent").instantiate(), wy3f.instantiate(),
              wy3f.instantiate({**wy3f.spec.defaults, "BV": 64})]
    plan = Evidence(kind="dispatch", subject="x", value=0.1, detail={
        "axis": "total_seq_len", "uppers": [401], "nested": [None, {"axis": "len_cu_seqlens", "uppers": [9]}]})
    got = compose_planned(PRE.definition, Decision(action="generate", reason="r", direction="dispatch",
                                                   evidence=[plan]), leaves)
    committed = load_solution(Path(PRE.path) / "solutions" / "dispatch" / "recurrent_wy3f_bv64_401.json")
    assert got.hash() == committed.hash()
