"""benchmarks/indexer_resources.py: the DSA indexer's one-launch kernel compiled for sm_90 here (no GPU), its registers,
spill stack and spill instructions per point; bad points and the interpreter are refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

from operator_helpers import run_benchmark

SCRIPT = "benchmarks/indexer_resources.py"


def test_a_point_reports_its_registers_and_spills(tmp_path: Path) -> None:
    proc = run_benchmark(SCRIPT, ["--points", "256,1,0,10,4096", "--name", "t", "--out", str(tmp_path)], timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = json.loads((tmp_path / "indexer_resources_t.json").read_text())["rows"]
    # num_warps 0 is the seed's own count for the row length: 8 warps at NPAD 4,096
    assert (row["BN"], row["BLOCKS"], row["num_warps"], row["HIST_BITS"], row["NPAD"]) == (256, 1, 8, 10, 4096), row
    assert 0 < row["registers"] <= 255 and row["stack_bytes"] >= 0, row
    assert (row["stack_bytes"] > 0) == (row["spill_stores"] > 0), row
    assert "| 256 | 1 | 8 | 10 | 4096 |" in (tmp_path / "indexer_resources_t.md").read_text()


def test_bad_points_and_the_interpreter_are_refused(tmp_path: Path) -> None:
    for bad in ("256,1,0", "256,1,x,10,4096"):
        proc = run_benchmark(SCRIPT, ["--points", bad, "--out", str(tmp_path)], timeout=120)
        assert proc.returncode == 2 and "BN,BLOCKS,num_warps,HIST_BITS,NPAD" in proc.stderr, proc.stderr[-2000:]
    proc = run_benchmark(SCRIPT, ["--out", str(tmp_path)], interpret=True, timeout=120)
    assert proc.returncode == 2 and "TRITON_INTERPRET" in proc.stderr, proc.stderr[-2000:]
    assert not list(tmp_path.iterdir())
