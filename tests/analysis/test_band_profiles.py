"""Band classes from profiles: the pure merge (recorded Nsight Compute report) and the campaign step that
profiles the baseline on one workload per band (real CPU executor, real tracking store)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.analysis.campaign_analysis import analyse_operator, apply_profiles, band_probes
from kernelopt.analysis.profile_parse import parse_ncu_csv
from kernelopt.data import EvalRequest, HarnessSettings, load_solution
from kernelopt.data.records import CampaignState, CandidateRecord
from kernelopt.operators import load_operator

RAW = Path(__file__).resolve().parent / "fixtures" / "ncu_raw.csv"
OP = load_operator("rmsnorm_h4096")
LAT = {w.uuid: 0.001 * (1 + w.axes["batch_size"] / 100) for w in OP.workloads}


def _analysis() -> dict:
    return analyse_operator(OP.definition, OP.workloads, OP.path, LAT, "NVIDIA H200")


def test_profiled_band_takes_its_class_from_the_profile_others_keep_the_roofline() -> None:
    analysis = _analysis()
    probes = band_probes(analysis)
    assert set(probes) == {b["name"] for b in analysis["bands"]["bands"]}
    for band in analysis["bands"]["bands"]:
        assert probes[band["name"]] in band["workloads"]
    first = analysis["bands"]["bands"][0]["name"]
    profile = {"ncu": {"launches": parse_ncu_csv(RAW.read_text())},
               "torch": {"kernels": [{"name": "k", "launches": 1, "total_us": 9.0}], "kernels_per_call": 1.0,
                         "host_gap_pct": 3.0}}
    out = apply_profiles(analysis, probes, {probes[first]: profile})
    got = out["bottlenecks"][first]
    assert got["source"] == "profile" and got["evidence"]["workload"] == probes[first]
    assert got["evidence"]["metrics"]["dominant_kernel"]
    others = [b for b in out["bottlenecks"] if b != first]
    assert others and all(out["bottlenecks"][b]["source"] == "roofline" for b in others)
    assert sum("roofline class kept" in n for n in out["notes"]) == len(others)
    assert analysis["bottlenecks"][first]["source"] == "roofline"  # the input is not changed


def _campaign_analysis(tmp_path: Path, elapsed_s: float = 0.0) -> tuple[dict, dict | None, list]:
    """The campaign step on a real CPU executor and sqlite store, its baseline sweep logged ``elapsed_s``
    into the default wall clock: (analysis, the baseline's logged ``profile.json`` or None, events)."""
    pytest.importorskip("mlflow")
    from kernelopt.campaign import CampaignConfig, _Loop
    from kernelopt.executor import make_executor
    from kernelopt.tracking import TrackingStore

    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    run = store.start_campaign(OP.name, {"operator": OP.name}, {})
    small = [w for w in OP.workloads if w.axes["batch_size"] <= 256]  # quick on a CPU
    lat = {w.uuid: LAT[w.uuid] for w in small}
    sol = load_solution(OP.path / "solutions" / "baselines" / "reference.json")
    quick = HarnessSettings(warmup=0, iterations=1, trials=1, time_reference=False)
    events: list[tuple[str, dict]] = []
    with make_executor("cpu", env={"KERNELOPT_CACHE_DIR": str(tmp_path / "builds")}) as ex:
        (res,) = ex.evaluate_many([EvalRequest(definition=OP.definition, solution=sol, workloads=small,
                                               settings=quick)])
        base = store.log_candidate(run, sol, res, stage="sweep", params={"settings_key": quick.key()})
        cand = CandidateRecord(run_id=base, name=sol.name, solution_hash=sol.hash(), stage="sweep",
                               pass_count=len(lat), workload_count=len(lat), mean_latency_ms=0.01,
                               per_workload_ms=lat, status="ALL_PASSED", start_time=1)
        state = CampaignState(campaign_run_id=run, definition=OP.name, candidates=[cand], decisions=[],
                              gate_workloads=[], all_workloads=list(lat), elapsed_s=elapsed_s)
        loop = _Loop(CampaignConfig(operator=OP.name, harness=quick), store, ex, None,
                     lambda event, **info: events.append((event, info)), OP.definition, OP.workloads)
        loop.run_id, loop.device = run, "NVIDIA H200"  # ceilings known: the profiling step runs
        got = loop.with_analysis(state, OP.path).analysis
    return got, store.read_artifact_json(base, "profile.json"), events


def test_campaign_profiles_the_baseline_per_band_and_logs_it(tmp_path: Path) -> None:
    got, logged, events = _campaign_analysis(tmp_path)
    assert set(logged["probes"]) == {b["name"] for b in got["bands"]["bands"]}
    assert set(logged["workloads"]) == set(logged["probes"].values())
    assert all(p["torch"]["host_ops"] for p in logged["workloads"].values())
    # a CPU profile has no device kernels: every band keeps its roofline class, and says why
    assert all(v["source"] == "roofline" for v in got["bottlenecks"].values())
    assert any("no profile metrics" in n for n in got["notes"])
    assert ("profiled", {"classes": {}}) in events


def test_band_profiling_is_skipped_when_the_wall_clock_cannot_afford_it(tmp_path: Path) -> None:
    """A 150 s campaign whose GDN prefill profiles (torch + ncu children, ~45 s per workload on the H200) ran
    80+ s past its clock (call AK): with 60 s left, a quarter of it is below one child's minimum."""
    from kernelopt.campaign_types import CampaignConfig

    clock = CampaignConfig(operator=OP.name).budget.wall_clock_s
    got, logged, events = _campaign_analysis(tmp_path, elapsed_s=clock - 60)
    assert logged is None  # nothing profiled
    assert all(v["source"] == "roofline" for v in got["bottlenecks"].values())
    why = [n for n in got["notes"] if n.startswith("band profiling skipped: 60 s of the wall clock left")]
    assert why and ("profile_skipped", {"reason": why[0]}) in events  # said as a skip, not a failure
    assert not [e for e, _ in events if e == "profile_failed"]


def test_profile_class_is_checked_against_the_bands_roofline_evidence() -> None:
    """A profile reading SM-busy (load/store issue) on a band already near its memory roofline is memory-bound
    (metrics of the GDN decode batch-64 band on the H200, call O)."""
    analysis = _analysis()
    probes = band_probes(analysis)
    first = analysis["bands"]["bands"][0]["name"]
    analysis["bottlenecks"][first] = {"class": "memory_bound", "source": "roofline",
                                      "evidence": {"fraction": 0.78, "limiter": "memory"}}
    launch = {"id": 0, "kernel": "_gdn_decode_kernel", "duration_us": 19.6, "dram_throughput_pct": 52.58,
              "sm_throughput_pct": 65.72, "achieved_occupancy_pct": 88.58, "theoretical_occupancy_pct": 100.0,
              "registers_per_thread": 27.0, "waves_per_sm": 7.8}
    got = apply_profiles(analysis, probes, {probes[first]: {"ncu": {"launches": [launch]}}})["bottlenecks"][first]
    assert got["class"] == "memory_bound" and got["source"] == "profile"
    assert "memory roofline" in got["evidence"]["rule"]
    analysis["bottlenecks"][first]["evidence"]["fraction"] = 0.3  # far from the roofline: the profile stands
    got = apply_profiles(analysis, probes, {probes[first]: {"ncu": {"launches": [launch]}}})["bottlenecks"][first]
    assert got["class"] == "compute_bound"


def test_a_profiled_band_reads_the_official_span_of_its_workload() -> None:
    """Host gaps of wall time make a call launch-bound only if the official latency of the profiled workload
    (the analysis's latencies: the profiled baseline's sweep) leaves its span largely uncovered by kernels."""
    analysis = _analysis()
    band, uuid = next(iter(band_probes(analysis).items()))
    profile = {"ncu": {"launches": parse_ncu_csv(RAW.read_text())},
               "torch": {"kernels": [{"name": "a", "launches": 5, "total_us": 400.0},
                                     {"name": "b", "launches": 5, "total_us": 100.0}],
                         "kernels_per_call": 2.0, "device_us_per_call": 100.0, "host_gap_pct": 60.0}}
    classes = {}
    for latency_ms in (0.105, 0.5):  # 5 % / 80 % of the span idle
        a = {**analysis, "latencies": {**analysis["latencies"], uuid: latency_ms}}
        got = apply_profiles(a, {band: uuid}, {uuid: profile})["bottlenecks"][band]
        classes[latency_ms] = got["class"]
        assert got["evidence"]["metrics"]["span_idle_pct"] == pytest.approx(100 * (1 - 0.1 / latency_ms))
    assert classes[0.5] == "launch_bound" and classes[0.105] != "launch_bound"
    # the official loop's own span anatomy, where the timed workload has it, decides instead of the estimate
    a = {**analysis, "latencies": {**analysis["latencies"], uuid: 0.5}}
    measured = {**profile, "official_span": {"idle_pct": 4.0}}
    got = apply_profiles(a, {band: uuid}, {uuid: measured})["bottlenecks"][band]
    assert got["evidence"]["metrics"]["span_idle_pct"] == 4.0 and got["class"] != "launch_bound"
    assert got["evidence"]["metrics"]["span_idle_source"] == "official"
