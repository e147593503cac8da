"""Durability: 4 concurrent campaigns writing one sqlite store lose no run; malformed definitions,
workloads, solutions, policies and configs fail with one clear error naming file and field, and
write nothing. (kill -9 and resume: ``tests/test_campaign.py``.)

This file is also the script of the campaign subprocesses:
``python tests/test_durability.py <store dir> <generator seed>``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kernelopt.campaign import CampaignConfig, run_campaign
from kernelopt.controller import Budget, Rules
from kernelopt.data import DataError, HarnessSettings
from kernelopt.generators import OfflineGenerator
from kernelopt.operators import OPERATORS_DIR, load_operator, operator_settings
from kernelopt.tracking import TrackingStore

OP = "rmsnorm_h4096"
REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "tests" / "fixtures" / "durability"  # a python seed: no Triton interpreter, fast
HARNESS = HarnessSettings(warmup=0, iterations=2, trials=1, timer="cpu_wall", flush_l2=False,
                          time_reference=False, timeout_s=120)
CAMPAIGNS = 4


def store_at(root: Path) -> TrackingStore:
    return TrackingStore(f"sqlite:///{root}/mlflow.db", str(root / "artifacts"))


def campaign(root: Path, seed: int) -> dict:
    """One small campaign (gate 1 workload, sweep 2, one round of 2 candidates) on the cpu executor."""
    from kernelopt.executor import make_executor

    cfg = CampaignConfig(operator=OP, harness=HARNESS, seed=seed, name=f"durability-{seed}",
                         budget=Budget(max_candidates=4, max_rounds=1, patience=2, candidates_per_round=2,
                                       wall_clock_s=600),
                         rules=Rules(gate_size=1, repeats=2), workload_limit=2,
                         reuse_across_campaigns=False)  # every campaign evaluates all its candidates
    with make_executor("cpu") as ex:
        out = run_campaign(cfg, store=store_at(root), executor=ex, generator=OfflineGenerator(seed=seed, root=SEEDS))
    return {"run_id": out.campaign_run_id, "evaluations": out.evaluations, "stop": out.stop_reason}


@pytest.mark.slow
def test_concurrent_campaigns_share_one_sqlite_store_without_losing_runs(tmp_path):
    store = store_at(tmp_path)
    store.list_campaigns(OP)  # create the database once, as a long-lived store would exist already
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, __file__, str(tmp_path), str(seed)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
             for seed in range(CAMPAIGNS)]
    outs = []
    for p in procs:
        text, _ = p.communicate(timeout=540)
        assert p.returncode == 0, text[-4000:]
        outs.append(json.loads(text.strip().splitlines()[-1]))
    ids = store.list_campaigns(OP)
    assert sorted(ids) == sorted(o["run_id"] for o in outs) and len(set(ids)) == CAMPAIGNS
    for o in outs:
        state = store.load_state(o["run_id"])
        assert o["stop"].startswith("round budget spent"), o
        assert len(state.candidates) == o["evaluations"] >= 3, (o, len(state.candidates))
        dup = [k for k, n in Counter((c.solution_hash, c.stage) for c in state.candidates).items() if n > 1]
        assert not dup, dup
        assert all(c.workload_count and c.status != "UNKNOWN" for c in state.candidates)
        assert state.decisions[-1].action == "stop"
        assert store.campaign_run(o["run_id"]).info.status == "FINISHED"


# -- malformed inputs: one clear error naming file and field, nothing written ----------------------

def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.run([sys.executable, "-m", "kernelopt.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180, check=False)


def test_evaluate_with_a_malformed_solution_exits_2_naming_the_file(tmp_path):
    bad = tmp_path / "bad_solution.json"
    bad.write_text('{"name": "x", "definition": "rmsnorm_h4096", "author": "t",\n "spec": {"language": "python"')
    wrong = tmp_path / "wrong_field.json"
    wrong.write_text(json.dumps({"name": "x", "definition": "rmsnorm_h4096", "author": "t", "sources": [
        {"path": "main.py", "content": "def run(a, b): pass"}],
        "spec": {"language": "python", "target_hardware": ["cpu"], "entry_point": "main.py:run"}}))
    for path, field in ((bad, "malformed JSON"), (wrong, "entry_point")):
        res = _cli(["evaluate", f"solution={path}", "executor=cpu", f"output={tmp_path}/traces.jsonl"], tmp_path)
        text = " ".join((res.stdout + res.stderr).split())  # rich wraps long lines
        assert res.returncode == 2, text[-3000:]
        assert path.name in text and field in text, text[-3000:]
        assert not (tmp_path / "traces.jsonl").exists() and not (tmp_path / "traces").exists()


def test_optimize_with_a_misspelt_option_fails_before_creating_mlruns(tmp_path):
    res = _cli(["optimize", "controller.max_candidtes=3", "executor=cpu"], tmp_path)
    text = res.stdout + res.stderr
    assert res.returncode != 0 and "max_candidtes" in text, text[-3000:]
    assert not (tmp_path / "mlruns").exists()


def _operator_copy(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "operators"
    shutil.copytree(OPERATORS_DIR / OP, root / OP, ignore=shutil.ignore_patterns("solutions"))
    monkeypatch.setenv("KERNELOPT_OPERATORS_DIR", str(root))
    return root / OP


@pytest.mark.parametrize("file,mutate,expect", [
    ("definition.json", lambda d: d["inputs"]["weight"].update(dtype="bfloat17"), "dtype"),
    ("definition.json", lambda d: d["inputs"]["weight"].update(shape=["hidden"]), "undeclared axis 'hidden'"),
    ("definition.json", lambda d: d.update(reference="def nope(:"), "reference"),
])
def test_malformed_definition_names_file_and_field(tmp_path, monkeypatch, file, mutate, expect):
    folder = _operator_copy(tmp_path, monkeypatch)
    data = json.loads((folder / file).read_text())
    mutate(data)
    (folder / file).write_text(json.dumps(data))
    with pytest.raises(DataError) as err:
        load_operator(OP)
    assert str(folder / file) in str(err.value) and expect in str(err.value)


LINE = ('{{"definition": "rmsnorm_h4096", "solution": null, "workload": {{"uuid": "u1", "axes": {axes}, '
        '"inputs": {{}}}}, "evaluation": null}}')


@pytest.mark.parametrize("line,expect", [
    (LINE.format(axes='{"batch": 3}'), "workload.axes"),
    (LINE.format(axes='{"batch_size": -3}'), "workload.axes.batch_size"),
    ('{"definition": "rmsnorm_h4096", "workload": ', "workloads.jsonl:1"),
])
def test_malformed_workload_names_file_line_and_field(tmp_path, monkeypatch, line, expect):
    folder = _operator_copy(tmp_path, monkeypatch)
    (folder / "workloads.jsonl").write_text(line + "\n")
    with pytest.raises(DataError) as err:
        load_operator(OP)
    assert "workloads.jsonl" in str(err.value) and expect in str(err.value)


def test_malformed_harness_and_policy_files_name_file_and_field(tmp_path, monkeypatch):
    from kernelopt.harness.evaluate import evaluate
    from kernelopt.harness.static_policy import load_policy

    folder = _operator_copy(tmp_path, monkeypatch)
    (folder / "harness.json").write_text('{"atol": 1, "warmups": 3}')
    with pytest.raises(DataError, match=r"harness\.json: unknown harness setting\(s\) \['warmups'\]"):
        operator_settings(OP)
    (folder / "policy.json").write_text('{"banned_calls": [1]}')
    with pytest.raises(DataError, match=r"policy\.json: field 'banned_calls'"):
        load_policy(folder)
    # the harness refuses the request (a ValueError naming the file), it does not blame the solution
    sys.path.insert(0, str(REPO / "tests" / "adversarial"))
    try:
        from adversarial_helpers import corpus_solution, request_for
    finally:
        sys.path.pop(0)
    with pytest.raises(DataError, match=r"policy\.json"):
        evaluate(request_for(corpus_solution("honest", "py_value"), (1,)), device="cpu")


if __name__ == "__main__":
    print(json.dumps(campaign(Path(sys.argv[1]), int(sys.argv[2]))))
