"""Reference timings shared across worker processes through the machine's disk cache
(kernelopt.harness.reference_times): a fresh process reuses them; turning caching off times the reference again."""

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


def _evaluate_in_a_fresh_process(cache_dir: Path, cache: bool = True) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(here=str(HERE), cache=cache)], capture_output=True,
                          text=True, timeout=600, check=False,
                          env={**os.environ, "KERNELOPT_CACHE_DIR": str(cache_dir)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_fresh_worker_reuses_the_reference_timing_and_caching_off_times_it_again(tmp_path: Path) -> None:
    first = _evaluate_in_a_fresh_process(tmp_path)
    assert first["status"] == "PASSED" and "reused" not in first["log"]
    assert len(list((tmp_path / "reference_times").glob("*.json"))) == 1
    second = _evaluate_in_a_fresh_process(tmp_path)
    assert second["status"] == "PASSED" and "reference latency reused from an earlier evaluation" in second["log"]
    assert second["ref"] == first["ref"]
    third = _evaluate_in_a_fresh_process(tmp_path, cache=False)
    assert "reused" not in third["log"] and third["ref"] != first["ref"]  # timed again (wall-clock medians differ)


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
    (tmp_path / "reference_times" / "k.json").write_text("{not json")
    assert reference_times.load("k", root=tmp_path) is None
    (tmp_path / "reference_times" / "k.json").write_text(json.dumps({"times_ms": []}))
    assert reference_times.load("k", root=tmp_path) is None
