"""Candidate runs: what log_candidate writes, dedup via find_evaluated, interrupted logs."""

from __future__ import annotations

import json

import pytest
from tracking_helpers import (
    DEFINITION,
    SETTINGS_KEY,
    UUIDS,
    make_result,
    make_solution,
    params,
)

from kernelopt.data import Decision, Evidence, Solution, Trace, parse_model
from kernelopt.tracking.summary import request_key


def test_log_candidate_writes_params_metrics_tags_and_artifacts(store):
    camp = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution("k1", block=128)
    res = make_result(sol, [1.0, 2.0, 4.0])
    dec = Decision(action="gate", reason="try tiles", direction="tile", count=1,
                   evidence=[Evidence(kind="latency", subject="x", value=1.5)])
    run_id = store.log_candidate(camp, sol, res, stage="gate", params=params(parent_run_id="p" * 32),
                                 decision=dec, artifacts={"prompt.txt": "write a kernel"})
    run = store.client.get_run(run_id)
    p, m, t = run.data.params, run.data.metrics, run.data.tags
    assert run.info.status == "FINISHED"
    assert t["mlflow.parentRunId"] == camp and t["kernelopt.campaign"] == camp
    assert t["kernelopt.solution_hash"] == sol.hash() == p["solution_hash"]
    assert t["kernelopt.stage"] == "gate" and t["kernelopt.status"] == "ALL_PASSED"
    assert t["kernelopt.settings_key"] == SETTINGS_KEY
    assert t["kernelopt.request_key"] == request_key(sol.hash(), SETTINGS_KEY, "gate", UUIDS)
    assert t["mlflow.runName"] == "k1:gate"
    assert p["name"] == "k1" and p["language"] == "triton" and p["generator"] == "offline"
    assert p["direction"] == "tile" and p["band"] == "small" and p["parent_run_id"] == "p" * 32
    assert p["harness_timer"] == "cpu_wall" and p["settings_key"] == SETTINGS_KEY and p["stage"] == "gate"
    assert p["seed"] == "rows" and p["seed.BLOCK"] == "128" and p["seed.WARPS"] == "4"
    assert "model" not in p  # None values are not logged
    assert m["mean_latency_ms"] == pytest.approx(7 / 3)
    assert m["median_latency_ms"] == pytest.approx(2.0)
    assert m["p95_latency_ms"] == pytest.approx(2.0 + 0.9 * 2.0)
    assert m["speedup_vs_reference"] == pytest.approx((2.0 + 1.0 + 0.5) / 3)
    assert (m["pass_count"], m["workload_count"], m["wall_s"]) == (3, 3, 1.25)
    assert m[f"lat_ms.{UUIDS[2]}"] == 4.0 and m[f"ref_ms.{UUIDS[0]}"] == 2.0 and m[f"speedup.{UUIDS[1]}"] == 1.0

    files = {f.path for f in store.client.list_artifacts(run_id)}
    assert {"solution", "traces.jsonl", "result.json", "decision.json", "logs", "prompt.txt"} <= files
    assert parse_model(Solution, store.read_artifact_json(run_id, "solution/solution.json"), "x") == sol
    assert store.read_artifact_text(run_id, "solution/src/kernel.py") == sol.source("kernel.py")
    assert store.read_artifact_text(run_id, "solution/src/helpers/util.py") == "X = 1\n"
    assert res.model_validate(store.read_artifact_json(run_id, "result.json")) == res
    assert Decision.model_validate(store.read_artifact_json(run_id, "decision.json")) == dec
    traces = [parse_model(Trace, json.loads(ln), "t") for ln in
              store.read_artifact_text(run_id, "traces.jsonl").splitlines()]
    assert [tr.workload.uuid for tr in traces] == UUIDS
    assert traces[0].evaluation.performance.latency_ms == 1.0 and traces[0].solution == "k1"
    assert store.read_artifact_text(run_id, "logs/build.log") == "built ok"
    assert store.read_artifact_text(run_id, "prompt.txt") == "write a kernel"


def test_failed_candidate_has_no_aggregates(store):
    camp = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution("bad", block=32)
    run_id = store.log_candidate(camp, sol, make_result(sol, [1.0, None, 3.0]), stage="gate", params=params())
    run = store.client.get_run(run_id)
    m = run.data.metrics
    assert run.data.tags["kernelopt.status"] == "FAILED"
    assert m["pass_count"] == 2 and m["workload_count"] == 3 and m["all_passed"] == 0
    assert "mean_latency_ms" not in m and "p95_latency_ms" not in m
    assert f"lat_ms.{UUIDS[1]}" not in m and m[f"lat_ms.{UUIDS[2]}"] == 3.0
    assert "boom" in store.read_artifact_text(run_id, f"logs/{UUIDS[1]}.log")


def test_log_candidate_rejects_bad_input(store):
    camp = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution()
    res = make_result(sol, [1.0])
    with pytest.raises(ValueError, match="stage must be one of"):
        store.log_candidate(camp, sol, res, stage="final", params=params())
    with pytest.raises(ValueError, match="settings_key"):
        store.log_candidate(camp, sol, res, stage="gate", params={"generator": "offline"})
    with pytest.raises(ValueError, match="not the hash"):
        store.log_candidate(camp, make_solution(block=16), res, stage="gate", params=params())
    with pytest.raises(ValueError, match="contradicts"):
        store.log_candidate(camp, sol, res, stage="gate", params=params(stage="sweep"))
    with pytest.raises(ValueError, match="not a valid MLflow param name"):
        store.log_candidate(camp, sol, res, stage="gate", params=params(**{"bad'key": 1}))
    with pytest.raises(ValueError, match="not a kernelopt campaign run|not found"):
        store.log_candidate("0" * 32, sol, res, stage="gate", params=params())
    assert store.load_state(camp).candidates == []


def test_find_evaluated_dedups_by_solution_settings_stage_and_workloads(store):
    camp = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution("k1")
    h = sol.hash()
    assert store.find_evaluated(camp, h, SETTINGS_KEY, "gate") is None
    run_id = store.log_candidate(camp, sol, make_result(sol, [1.0, 2.0]), stage="gate", params=params())
    assert store.find_evaluated(camp, h, SETTINGS_KEY, "gate") == run_id
    assert store.find_evaluated(camp, h, SETTINGS_KEY, "gate", workloads=list(reversed(UUIDS[:2]))) == run_id
    assert store.find_evaluated(camp, h, SETTINGS_KEY, "gate", workloads=UUIDS) is None
    assert store.find_evaluated(camp, h, SETTINGS_KEY, "sweep") is None
    assert store.find_evaluated(camp, h, SETTINGS_KEY.replace("iterations=50", "iterations=5"), "gate") is None
    assert store.find_evaluated(camp, make_solution(block=8).hash(), SETTINGS_KEY, "gate") is None

    other = store.start_campaign(DEFINITION, {}, {})
    assert store.find_evaluated(other, h, SETTINGS_KEY, "gate") is None
    assert store.find_evaluated(other, h, SETTINGS_KEY, "gate", across_campaigns=True) == run_id
    adopted = store.adopt_candidate(other, run_id)
    assert adopted != run_id
    assert store.find_evaluated(other, h, SETTINGS_KEY, "gate") == adopted
    assert store.find_evaluated(other, h, SETTINGS_KEY, "gate", across_campaigns=True) == adopted  # own first
    # the same card's campaigns only: a shared store may hold other machines' runs (each run names its card too)
    assert store.client.get_run(run_id).data.tags["kernelopt.measured_on"] == "cpu"
    elsewhere = store.start_campaign(DEFINITION, {}, {"kernelopt.hardware": "1x NVIDIA H200"})
    assert store.find_evaluated(elsewhere, h, SETTINGS_KEY, "gate", across_campaigns=True) is None
    store.client.set_tag(camp, "kernelopt.hardware", "8x NVIDIA H200")  # the first campaign ran on that card
    store.client.set_tag(other, "kernelopt.hardware", "2x NVIDIA H100 80GB HBM3")
    assert store.find_evaluated(elsewhere, h, SETTINGS_KEY, "gate", across_campaigns=True) == run_id
    [rec] = store.load_state(other).candidates
    [orig] = store.load_state(camp).candidates
    assert rec.model_dump(exclude={"run_id", "start_time"}) == orig.model_dump(exclude={"run_id", "start_time"})
    assert store.download_solution(adopted) == sol
    assert store.client.get_run(adopted).data.tags["kernelopt.adopted_from"] == run_id
    assert store.adopt_candidate(other, adopted) == adopted


def test_interrupted_logs_are_ignored_and_can_be_failed(store, monkeypatch):
    camp = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution("k1")
    good = store.log_candidate(camp, sol, make_result(sol, [1.0]), stage="gate", params=params())
    # a process killed between create_run and set_terminated leaves a RUNNING nested run behind
    sol2 = make_solution("k2", block=256)
    dangling = store.client.create_run(store.experiment_of(camp), tags={
        "mlflow.parentRunId": camp, "kernelopt.kind": "candidate", "kernelopt.campaign": camp,
        "kernelopt.stage": "gate", "kernelopt.solution_hash": sol2.hash()}).info.run_id
    # an artefact upload that fails mid-way marks the run FAILED and re-raises
    def broken_upload(run_id, local_dir):
        raise OSError("disk full")
    monkeypatch.setattr(store, "upload_dir", broken_upload)
    with pytest.raises(OSError, match="disk full"):
        store.log_candidate(camp, sol2, make_result(sol2, [0.5]), stage="gate", params=params())
    monkeypatch.undo()
    state = store.load_state(camp)
    assert [c.run_id for c in state.candidates] == [good]
    assert store.find_evaluated(camp, sol2.hash(), SETTINGS_KEY, "gate") is None
    assert store.resume_campaign(camp) == [dangling]
    assert store.client.get_run(dangling).info.status == "FAILED"
