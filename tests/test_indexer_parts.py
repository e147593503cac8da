"""benchmarks/indexer_parts.py on a CPU (Triton interpreter): the retained indexer's one launch, its scoring alone
and its select alone run on the same generated inputs, and the select over the scoring's output returns the one
launch's ids element for element; bad shapes and rows without a select get a clear message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "indexer_parts.py"


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRITON_INTERPRET": "1", "KERNELOPT_CACHE_DIR": str(tmp_path / "builds")}
    return subprocess.run([sys.executable, str(SCRIPT), *args, "--iters", "1", "--warmup", "0", "--out",
                           str(tmp_path)], check=False, capture_output=True, text=True, env=env, timeout=600,
                          cwd=REPO)


def test_the_parts_run_and_the_select_returns_the_one_launch_ids(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--shapes", "2:34:80", "--params", "BN=128")
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "indexer_parts_cpu.json").read_text())
    (row,) = data["rows"]
    assert data["point"]["BN"] == 128 and row["max_num_pages"] == 34 and row["warps"] == 8
    assert row["ids_equal"] is True
    assert all(row[k] > 0 for k in ("one_ms", "scores_ms", "scores_w4_ms", "select_ms"))
    assert "| yes |" in (tmp_path / "indexer_parts_cpu.md").read_text()


def test_the_bisect_seed_splits_too(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--seed", "dsa_indexer_bisect", "--shapes", "1:36:40", "--params", "BITS=2", "BN=128")
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "indexer_parts_cpu.json").read_text())
    (row,) = data["rows"]
    assert data["seed"] == "dsa_indexer_bisect" and data["point"]["BITS"] == 2 and row["ids_equal"] is True
    assert "Seed `dsa_indexer_bisect`" in (tmp_path / "indexer_parts_cpu.md").read_text()
    proc = _run(tmp_path, "--seed", "dsa_indexer_hist", "--shapes", "1:36:40", "--params", "BN=128")
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "indexer_parts_cpu.json").read_text())
    assert data["seed"] == "dsa_indexer_hist" and data["point"]["HIST_BITS"] == 12
    assert data["rows"][0]["ids_equal"] is True
    proc = _run(tmp_path, "--seed", "dsa_indexer_coop", "--shapes", "1:36:40")
    assert proc.returncode != 0 and "--seed must be one of" in proc.stderr


def test_bad_shapes_and_pass_through_rows_are_explained(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--shapes", "2x34")
    assert proc.returncode != 0 and "batch:max_num_pages:num_pages" in proc.stderr
    proc = _run(tmp_path, "--shapes", "2:20:40")
    assert proc.returncode != 0 and "pass-through" in proc.stderr
    proc = _run(tmp_path, "--workloads", "nosuchuuid")
    assert proc.returncode != 0 and "matches 0 workloads" in proc.stderr
