"""Controller v2-lite: evidence rows, band and direction from ``CampaignState.analysis``, the
roofline stop rule, and the campaign's ``bands.json`` artefact on a real tracking store."""

from __future__ import annotations

import pytest

from kernelopt.analysis.campaign_analysis import analyse_operator
from kernelopt.controller import Budget, Rules, decide
from kernelopt.data.records import CampaignState, CandidateRecord, ChampionInfo, Decision
from kernelopt.operators import load_operator

OP = load_operator("gemm_n4096_k4096")
UUIDS = [w.uuid for w in OP.workloads]
M = {w.uuid: w.axes["M"] for w in OP.workloads}
DIRS = ["more_parallelism", "split_k", "wider_tiles", "deeper_pipeline", "shallower_pipeline", "more_warps"]


def _bounds() -> dict[str, float]:
    a = analyse_operator(OP.definition, OP.workloads, OP.path, {u: 1.0 for u in UUIDS}, "NVIDIA H200")
    return {u: r["bound_ms"] for u, r in a["workloads"].items()}


BOUND = _bounds()


def _state(latency: dict[str, float], device: str | None = "NVIDIA H200",
           decisions: list[Decision] | None = None) -> CampaignState:
    analysis = analyse_operator(OP.definition, OP.workloads, OP.path, latency, device)
    params = {"directions": DIRS}
    mean = sum(latency.values()) / len(latency)
    cands = [
        CandidateRecord(run_id="g1", name="seed", solution_hash="h1", stage="gate", params=params,
                        pass_count=3, workload_count=3, mean_latency_ms=mean, status="ALL_PASSED", start_time=1),
        CandidateRecord(run_id="s1", name="seed", solution_hash="h1", stage="sweep", params=params,
                        pass_count=len(UUIDS), workload_count=len(UUIDS), mean_latency_ms=mean,
                        per_workload_ms=latency, status="ALL_PASSED", start_time=2),
    ]
    return CampaignState(campaign_run_id="camp", definition=OP.name, candidates=cands,
                         decisions=decisions or [Decision(action="generate", reason="r", direction="baseline"),
                                                 Decision(action="promote", reason="r", candidate_run_ids=["s1"])],
                         champion=ChampionInfo(run_id="s1", mean_latency_ms=mean),
                         gate_workloads=UUIDS[:3], all_workloads=UUIDS, analysis=analysis)


RULES = Rules(repeats=1)


def test_generate_names_band_bottleneck_and_evidence():
    # small M (<= 40) at 5 % of its (memory) roofline, everything else at 90 %
    lat = {u: BOUND[u] / (0.05 if M[u] <= 40 else 0.9) for u in UUIDS}
    d = decide(_state(lat), Budget(), RULES)
    assert d.action == "generate" and d.band is not None
    kinds = [e.kind for e in d.evidence]
    assert {"band_share", "roofline", "bottleneck", "direction"} <= set(kinds)
    bott = next(e for e in d.evidence if e.kind == "bottleneck")
    assert bott.subject == d.band
    band = next(b for b in _state(lat).analysis["bands"]["bands"] if b["name"] == d.band)
    assert band["high"] <= 40  # the far-from-roofline band wins on share x headroom
    assert bott.value == "latency_bound"
    assert d.direction == "deeper_pipeline"  # first of the skill's latency_bound list the seed declares
    roof = {e.subject: e.value for e in d.evidence if e.kind == "roofline"}
    assert roof[d.band] == pytest.approx(0.05)


def test_compute_bound_outlier_band_gets_a_compute_direction():
    # everything at 70 %: M = 8192 alone carries >= 1/3 of the latency (its own outlier band), is
    # compute-bound on the roofline and has the largest share x headroom
    lat = {u: BOUND[u] / 0.7 for u in UUIDS}
    d = decide(_state(lat), Budget(), RULES)
    bott = next(e for e in d.evidence if e.kind == "bottleneck")
    assert bott.value == "compute_bound" and d.band == "M 8192 (outlier)"
    assert bott.detail["limiter"] == "compute" and bott.detail["fraction"] == pytest.approx(0.7)
    assert d.direction == "wider_tiles"
    shares = {e.subject: e.value for e in d.evidence if e.kind == "band_share"}
    assert shares[d.band] >= 1 / 3 and sum(shares.values()) == pytest.approx(1.0)


def test_untried_directions_come_before_repeating_preferred_ones_then_widen():
    lat = {u: BOUND[u] / (0.05 if M[u] <= 40 else 0.9) for u in UUIDS}
    tried = [Decision(action="generate", reason="r", direction="baseline"),
             Decision(action="promote", reason="r", candidate_run_ids=["s1"])] + \
            [Decision(action="generate", reason="r", parent_run_id="g1", direction=n)
             for n in ("deeper_pipeline", "more_warps", "more_parallelism")]
    budget = Budget(max_rounds=20, patience=20)
    d = decide(_state(lat, decisions=tried), budget, RULES)
    # latency_bound prefers deeper_pipeline, more_warps, more_parallelism (all tried once from g1): an
    # untried direction comes next (not a second try of a preferred one); the other bands' bottleneck
    # evidence orders the untried ones
    untried = {"split_k", "wider_tiles", "shallower_pipeline"}
    assert d.direction in untried and d.count == Budget().candidates_per_round and d.parent_run_id == "g1"
    ev = next(e for e in d.evidence if e.kind == "direction")
    assert set(ev.detail["untried"]) == untried
    score = ev.detail["other_bands_score"]
    assert score[d.direction] == max(score[n] for n in untried)
    tried += [Decision(action="generate", reason="r", parent_run_id="g1", direction=n) for n in untried]
    d = decide(_state(lat, decisions=tried), budget, RULES)
    # every direction tried once from the only parent: widen around it, skill order first, a full round
    assert d.direction == "deeper_pipeline" and d.count == budget.candidates_per_round
    assert next(e for e in d.evidence if e.kind == "frontier").detail["widen"] is True
    tried += [Decision(action="generate", reason="r", parent_run_id="g1", direction="deeper_pipeline")]
    d = decide(_state(lat, decisions=tried), budget, RULES)
    assert d.direction == "more_warps"


def test_stop_when_every_band_reaches_the_roofline_target():
    lat = {u: BOUND[u] / 0.85 for u in UUIDS}
    d = decide(_state(lat), Budget(), RULES)
    assert d.action == "stop" and "roofline" in d.reason
    assert sum(e.kind == "roofline" for e in d.evidence) == len(_state(lat).analysis["bands"]["bands"])
    d = decide(_state(lat), Budget(), Rules(repeats=1, roofline_target=0.9))
    assert d.action == "generate"


def test_cpu_analysis_keeps_v1_direction_choice():
    lat = {u: 1.0 + M[u] / 100 for u in UUIDS}
    st = _state(lat, device="AMD EPYC")
    assert st.analysis["ceilings"] is None and st.analysis["bottlenecks"] == {}
    d = decide(st, Budget(), RULES)
    v1 = decide(st.model_copy(update={"analysis": None}), Budget(), RULES)
    assert d.direction == v1.direction == DIRS[0]
    assert d.band is not None and v1.band is None
    assert next(e for e in d.evidence if e.kind == "bottleneck").value == "unknown"


def test_campaign_logs_and_reloads_bands_json(tmp_path):
    pytest.importorskip("mlflow")
    from kernelopt.campaign import ANALYSIS_ARTIFACT, CampaignConfig, _Loop
    from kernelopt.tracking import TrackingStore

    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    run = store.start_campaign(OP.name, {"operator": OP.name}, {})
    lat = {u: BOUND[u] / 0.5 for u in UUIDS}
    st = _state(lat).model_copy(update={"analysis": None, "campaign_run_id": run})
    loop = _Loop(CampaignConfig(operator=OP.name), store, None, None, lambda *a, **k: None,
                 OP.definition, OP.workloads)
    loop.run_id, loop.device = run, "NVIDIA H200"
    got = loop.with_analysis(st, OP.path)
    assert got.analysis["baseline_run_id"] == "s1" and got.analysis["ceilings"]["device"] == "NVIDIA H200"
    saved = store.read_artifact_json(run, ANALYSIS_ARTIFACT)
    assert saved["bands"]["bands"] == got.analysis["bands"]["bands"]
    resumed = _Loop(CampaignConfig(operator=OP.name), store, None, None, lambda *a, **k: None,
                    OP.definition, OP.workloads)
    resumed.run_id = run  # no device known after a resume: the artefact is the source
    assert resumed.with_analysis(st, OP.path).analysis == saved
    off = _Loop(CampaignConfig(operator=OP.name, evidence=False), store, None, None, lambda *a, **k: None,
                OP.definition, OP.workloads)
    assert off.with_analysis(st, OP.path).analysis is None
    no_sweep = st.model_copy(update={"candidates": st.candidates[:1]})
    fresh = _Loop(CampaignConfig(operator=OP.name), store, None, None, lambda *a, **k: None,
                  OP.definition, OP.workloads)
    fresh.run_id = store.start_campaign(OP.name, {"operator": OP.name}, {})
    assert fresh.with_analysis(no_sweep, OP.path).analysis is None


def test_profiled_class_overrides_the_timing_class():
    lat = {u: BOUND[u] / 0.7 for u in UUIDS}
    st = _state(lat)
    st.analysis["bottlenecks"]["M 8192 (outlier)"] = {
        "class": "occupancy_limited", "source": "profile", "evidence": {"rule": "waves_per_sm 0.86 < 1"}}
    d = decide(st, Budget(), RULES)
    bott = next(e for e in d.evidence if e.kind == "bottleneck")
    assert (bott.value, bott.detail["source"]) == ("occupancy_limited", "profile")
    assert d.direction == "more_parallelism"  # first of the skill's occupancy_limited list


def test_missing_skill_file_is_a_note_not_a_crash(tmp_path):
    lat = {u: BOUND[u] / 0.7 for u in UUIDS}
    a = analyse_operator(OP.definition, OP.workloads, OP.path, lat, "NVIDIA H200", skill_file=tmp_path / "x.md")
    assert a["bottlenecks"] == {} and a["directions"] == {} and any("x.md missing" in n for n in a["notes"])
