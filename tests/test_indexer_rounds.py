"""``benchmarks/indexer_rounds.py``: the bisection rounds the ``dsa_indexer_hist`` select needs per row."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.indexer_rounds import rounds_needed, score_keys


def test_keys_keep_the_order_of_the_scores() -> None:
    s = np.array([-3.0, -0.0, 0.0, 1e-30, 2.5, np.inf, -np.inf], dtype=np.float32)
    keys = score_keys(s)
    assert list(np.argsort(keys, kind="stable")) == [6, 0, 1, 2, 3, 4, 5]


def test_the_rounds_stop_once_k_keys_are_isolated_and_ties_run_them_all() -> None:
    rng = np.random.default_rng(0)
    distinct = score_keys(rng.standard_normal(5000).astype(np.float32))
    full = rounds_needed(distinct, 0)
    assert 0 < full < 32 and rounds_needed(distinct, 12) <= full - 12 + 1
    ties = score_keys(np.full(3000, 0.5, dtype=np.float32))  # the 2048th key equals 952 others: every bit
    assert rounds_needed(ties, 0) == 32 and rounds_needed(ties, 12) == 20
    assert rounds_needed(distinct[:2048], 0) == 0 and rounds_needed(distinct[:100], 12) == 0  # k = every key


def test_the_script_counts_a_workload(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "benchmarks/indexer_rounds.py", "--workloads", "6e9056cc", "--hist-bits",
                           "0", "12", "--out", str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (row,) = json.loads((tmp_path / "indexer_rounds_cpu.json").read_text())["rows"]
    assert row["batch_size"] == 4 and row["max_num_pages"] == 34
    assert all(a >= b for a, b in zip(row["rounds"]["0"], row["rounds"]["12"]))
    assert "| 6e9056cc | 4 | 34 | 12 |" in (tmp_path / "indexer_rounds_cpu.md").read_text()
