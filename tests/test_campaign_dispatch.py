"""A ``dispatch`` decision end to end on a real tracking store and the real CPU executor: two swept
solutions that win different batch-size bands -> the controller plans a dispatch -> the campaign
composes it from the stored specialists and gates it (Triton interpreter)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.analysis.campaign_analysis import analyse_operator
from kernelopt.controller import Budget, Rules, decide
from kernelopt.data import EvalResult, HarnessSettings, LatencyStats, Solution, WorkloadResult
from kernelopt.data.records import ChampionInfo
from kernelopt.generators.seeds import load_seed
from kernelopt.operators import load_operator

pytest.importorskip("mlflow")

OP = load_operator("rmsnorm_h4096")
FIXTURE = Path(__file__).parent / "fixtures" / "solutions" / "rmsnorm_triton_ok"
SETTINGS = HarnessSettings(warmup=0, iterations=1, trials=1)


def _fixture() -> Solution:
    meta = json.loads((FIXTURE / "solution.json").read_text())
    meta["sources"] = [{"path": p.name, "content": p.read_text()} for p in sorted(FIXTURE.glob("*.py"))]
    return Solution.model_validate(meta)


def _swept(sol: Solution, lat: dict[str, float]) -> EvalResult:
    by = {w.uuid: w for w in OP.workloads}
    return EvalResult(definition=OP.name, solution=sol.name, solution_hash=sol.hash(), timer="cpu_wall",
                      environment={"hardware": "NVIDIA H200"},
                      results=[WorkloadResult(uuid=u, axes=dict(by[u].axes), status="PASSED",
                                              latency=LatencyStats(mean_ms=ms, trial_medians_ms=[ms], timer="cpu_wall"))
                               for u, ms in lat.items()])


def test_dispatch_decision_is_composed_and_gated(tmp_path, monkeypatch):
    from kernelopt.campaign import CampaignConfig, _Loop
    from kernelopt.executor import make_executor
    from kernelopt.tracking import TrackingStore

    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path / "builds"))
    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    run = store.start_campaign(OP.name, {"operator": OP.name}, {})
    batch = {w.uuid: w.axes["batch_size"] for w in OP.workloads}
    uuids = sorted(batch, key=batch.get)
    small, large = _fixture(), load_seed(OP.path / "solutions" / "seeds" / "rmsnorm_rowwise").instantiate(None)
    # "small" wins batch <= 64 by 2x, "large" wins the rest by 2x (figures logged as sweeps)
    lat_small = {u: 0.01 * (1 if batch[u] <= 64 else 4) for u in uuids}
    lat_large = {u: 0.01 * (2 if batch[u] <= 64 else 2) for u in uuids}
    key = SETTINGS.key()
    ids = [store.log_candidate(run, sol, _swept(sol, lat), stage="sweep", params={"settings_key": key})
           for sol, lat in ((small, lat_small), (large, lat_large))]
    state = store.load_state(run)
    analysis = analyse_operator(OP.definition, OP.workloads, OP.path, lat_large, "NVIDIA H200")
    state = state.model_copy(update={  # "large" is the champion (promoted earlier)
        "analysis": analysis, "all_workloads": uuids, "gate_workloads": uuids[:2],
        "champion": ChampionInfo(run_id=ids[1], mean_latency_ms=0.02)})
    d = decide(state, Budget(max_candidates=10), Rules(repeats=1))
    assert d.action == "generate" and d.direction == "dispatch", d.reason

    events = []
    with make_executor("cpu") as ex:
        loop = _Loop(CampaignConfig(operator=OP.name, harness=SETTINGS), store, ex, None,
                     lambda kind, **kw: events.append((kind, kw)), OP.definition, OP.workloads)
        loop.run_id = run
        loop.generate(state, d)
    after = store.load_state(run)
    gated = [c for c in after.candidates if c.stage == "gate" and c.name.startswith("dispatch_batch_size_")]
    assert len(gated) == 1 and gated[0].all_passed, gated
    assert gated[0].params.get("direction") == "dispatch" and gated[0].params.get("generator") == "dispatch"
    sol = store.download_solution(gated[0].run_id)
    names = [s.name for s in (small, large)]
    assert sol.spec.entry_point == "dispatch.py::run" and all(n in sol.description for n in names)
    assert ("proposed", {"count": 1, "names": [sol.name]}) in events


def test_a_nested_dispatch_decision_is_composed_and_gated(tmp_path, monkeypatch):
    """GDN prefill: 'narrow' (wy3f, 32-column V tiles) wins every band but the long calls of many sequences,
    where 'wide' (64 columns) wins (figures logged as sweeps) -> a dispatch over total_seq_len whose last band
    is an inner dispatch over len_cu_seqlens -> composed from the stored solutions and gated on two short
    workloads (Triton interpreter)."""
    from kernelopt.campaign import CampaignConfig, _Loop
    from kernelopt.executor import make_executor
    from kernelopt.tracking import TrackingStore

    pre = load_operator("gdn_prefill_qk4_v8_d128_k_last")
    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path / "builds"))
    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    run = store.start_campaign(pre.name, {"operator": pre.name}, {})
    tok = {w.uuid: w.axes["total_seq_len"] for w in pre.workloads}
    seqs = {w.uuid: w.axes["num_seqs"] for w in pre.workloads}
    uuids = sorted(tok, key=lambda u: (tok[u], u))
    seed = load_seed(pre.path / "solutions" / "seeds" / "gdn_prefill_chunked_wy3f")
    narrow, wide = seed.instantiate(None), seed.instantiate({**seed.spec.defaults, "BV": 64})
    lat_narrow = {u: 0.01 + tok[u] * 6e-5 for u in uuids}
    lat_wide = {u: v * (0.9 if tok[u] >= 2857 and seqs[u] >= 13 else 1.1) for u, v in lat_narrow.items()}
    key = SETTINGS.key()
    by = {w.uuid: w for w in pre.workloads}
    ids = []
    for sol, lat in ((narrow, lat_narrow), (wide, lat_wide)):
        res = EvalResult(definition=pre.name, solution=sol.name, solution_hash=sol.hash(), timer="cpu_wall",
                         environment={"hardware": "NVIDIA H200"},
                         results=[WorkloadResult(uuid=u, axes=dict(by[u].axes), status="PASSED",
                                                 latency=LatencyStats(mean_ms=ms, trial_medians_ms=[ms],
                                                                      timer="cpu_wall"))
                                  for u, ms in lat.items()])
        ids.append(store.log_candidate(run, sol, res, stage="sweep", params={"settings_key": key}))
    best = 0 if sum(lat_narrow.values()) < sum(lat_wide.values()) else 1
    analysis = analyse_operator(pre.definition, pre.workloads, pre.path, (lat_narrow, lat_wide)[best], "NVIDIA H200")
    state = store.load_state(run).model_copy(update={
        "analysis": analysis, "all_workloads": uuids, "gate_workloads": uuids[:2],
        "champion": ChampionInfo(run_id=ids[best], mean_latency_ms=0.1)})
    d = decide(state, Budget(max_candidates=10), Rules(repeats=1))
    assert d.action == "generate" and d.direction == "dispatch", d.reason
    plan = next(e for e in d.evidence if e.kind == "dispatch").detail
    assert plan["axis"] == "total_seq_len" and plan["nested"][-1] == {"axis": "len_cu_seqlens", "uppers": [6]}
    assert d.candidate_run_ids == [ids[0], ids[0], ids[1]]

    with make_executor("cpu") as ex:
        loop = _Loop(CampaignConfig(operator=pre.name, harness=SETTINGS), store, ex, None, lambda kind, **kw: None,
                     pre.definition, pre.workloads)
        loop.run_id = run
        loop.generate(state, d)
    gated = [c for c in store.load_state(run).candidates
             if c.stage == "gate" and c.name.startswith("dispatch_total_seq_len_")]
    assert len(gated) == 1 and gated[0].all_passed, gated
    sol = store.download_solution(gated[0].run_id)
    paths = {s.path for s in sol.sources}
    assert {"dispatch.py", "b1/dispatch.py", "b1/b0/kernel.py", "b1/b1/kernel.py", "b0/kernel.py"} <= paths
    assert "BV\": 64" in next(s.content for s in sol.sources if s.path == "b1/b1/kernel.py")
