"""Reference timings shared by the worker processes of one run (kernelopt.harness.reference_times): a fresh
process given the run's folder reuses them, caching off or no folder times the reference again, and each parent
process gives all its workers one folder of its own (kernelopt.executor.sandbox.worker_env)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from kernelopt.harness import reference_times

HERE = Path(__file__).resolve().parent
_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
from harness_helpers import DEVICE, fixture_solution, rmsnorm_request
from kernelopt.harness.evaluate import evaluate
req = rmsnorm_request(fixture_solution("rmsnorm_triton_ok"), batch_sizes=(7,), cache_reference_timing={cache})
r = evaluate(req, device=DEVICE).results[0]
print(json.dumps({{"status": str(r.status.value), "ref": r.reference_latency.trial_medians_ms, "log": r.log}}))
"""


def _evaluate_in_a_fresh_process(folder: Path | None, cache: bool = True) -> dict:
    env = {k: v for k, v in os.environ.items() if k != reference_times.ENV}
    if folder is not None:
        env[reference_times.ENV] = str(folder)
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(here=str(HERE), cache=cache)], capture_output=True,
                          text=True, timeout=600, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_fresh_worker_reuses_the_reference_timing_and_caching_off_times_it_again(tmp_path: Path) -> None:
    first = _evaluate_in_a_fresh_process(tmp_path)
    assert first["status"] == "PASSED" and "reused" not in first["log"]
    assert len(list(tmp_path.glob("*.json"))) == 1
    second = _evaluate_in_a_fresh_process(tmp_path)
    assert second["status"] == "PASSED" and "reference latency reused from an earlier evaluation" in second["log"]
    assert second["ref"] == first["ref"]
    third = _evaluate_in_a_fresh_process(tmp_path, cache=False)
    assert "reused" not in third["log"] and third["ref"] != first["ref"]  # timed again (wall-clock medians differ)
    alone = _evaluate_in_a_fresh_process(None)  # no run folder (an in-process evaluate): nothing shared on disk
    assert "reused" not in alone["log"] and alone["ref"] != first["ref"]


def test_every_worker_of_a_process_gets_its_folder_and_another_process_another() -> None:
    from kernelopt.executor.sandbox import run_reference_times_dir, worker_env

    mine = worker_env()[reference_times.ENV]
    assert mine == worker_env({"CUDA_VISIBLE_DEVICES": "1"})[reference_times.ENV] == run_reference_times_dir()
    assert Path(mine).is_dir()
    code = ("from kernelopt.executor.sandbox import worker_env, REFERENCE_TIMES_ENV as E; import os; "
            "d = worker_env()[E]; print(d, os.path.isdir(d))")
    env = {k: v for k, v in os.environ.items() if k != reference_times.ENV}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True,
                         env=env).stdout.split()
    assert out[0] != mine and out[1] == "True" and not Path(out[0]).exists()  # removed when that process exited
    kept = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True,
                          env={**env, reference_times.ENV: mine}).stdout.split()
    assert kept[0] == mine  # a folder the user names is used as is

def test_the_key_is_stable_across_processes_and_names_what_changes_the_figures(tmp_path: Path) -> None:
    args = ("rmsnorm_h4096", "def run(x): ...", "uuid-1", "settings-1")
    key = reference_times.cache_key(*args, torch.device("cpu"))
    code = ("import torch; from kernelopt.harness import reference_times as r; "
            f"print(r.cache_key(*{args!r}, torch.device('cpu')))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert other.stdout.strip() == key  # Python's hash() of a string differs per process; this must not
    changed = [reference_times.cache_key(*args[:i], a + "x", *args[i + 1:], torch.device("cpu"))
               for i, a in enumerate(args)]
    assert len({key, *changed}) == 5


def test_store_and_load_round_trip_and_a_damaged_file_reads_as_absent(tmp_path: Path) -> None:
    reference_times.store("k", [[1.5, 2.0], [1.25]], "cpu_wall", root=tmp_path)
    assert reference_times.load("k", root=tmp_path) == ([[1.5, 2.0], [1.25]], "cpu_wall")
    assert reference_times.load("missing", root=tmp_path) is None
    (tmp_path / "k.json").write_text("{not json")
    assert reference_times.load("k", root=tmp_path) is None
    (tmp_path / "k.json").write_text(json.dumps({"times_ms": []}))
    assert reference_times.load("k", root=tmp_path) is None
