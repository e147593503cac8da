"""benchmarks/prefill_seed_points.py: points of a GDN prefill seed's space timed side by side in one process (the
plumbing and the output checks in the Triton interpreter here; on a GPU the same script times them); points off the
seed's space are refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

from operator_helpers import run_benchmark

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "prefill_seed_points.py"


def test_points_are_run_compared_with_the_first_and_flagged_beyond_max_diff(tmp_path: Path) -> None:
    proc = run_benchmark(SCRIPT, ["--lengths", "20:2", "--workloads", "f2a9a537", "--points", "defaults", "INTER=fp32,STATES=fp32", "num_warps=8",
                                  "--rounds", "2", "--iters", "1", "--warmup", "0", "--max-diff", "1e-3",
                                  "--out", str(tmp_path)], interpret=True, timeout=600)
    # fp32 scratch rounds differently from the defaults' bf16 scratch: beyond --max-diff 1e-3, so exit 1
    assert proc.returncode == 1 and "INTER=fp32,STATES=fp32" in proc.stderr.splitlines()[-1], proc.stderr[-3000:]
    (out,) = tmp_path.glob("prefill_seed_points_*.json")
    data = json.loads(out.read_text())
    assert sorted({r["lengths"] for r in data["rows"]}) == ["20:2", "f2a9a537 (28:2)"]  # a workload's own split
    rows = {r["point"]: r for r in data["rows"] if r["lengths"] == "20:2"}
    assert list(rows) == ["defaults", "INTER=fp32,STATES=fp32", "num_warps=8"]
    assert data["rounds"] == 2 and all(len(r["rounds"]) == 2 and r["ms"] > 0 for r in rows.values()), rows
    assert rows["defaults"]["diff"] == 0 and rows["defaults"]["vs_first"] == 1.0
    assert 1e-3 < rows["INTER=fp32,STATES=fp32"]["diff"] < 2e-2 and rows["INTER=fp32,STATES=fp32"]["flagged"]
    assert rows["num_warps=8"]["diff"] < 1e-3 and not rows["num_warps=8"]["flagged"]  # the same arithmetic
    assert data["defaults"]["num_warps"] == 4 and [s["point"] for s in data["summary"]] == list(rows)
    assert [s["lengths"] for s in data["summary"]] == [2, 2, 2]
    assert "| 20:2 | INTER=fp32,STATES=fp32 |" in out.with_suffix(".md").read_text()


def test_points_off_the_seeds_space_are_refused_before_anything_runs(tmp_path: Path) -> None:
    for args, words in ((["--points", "BV=17"], "BV=17: {'BV': 17} not among the space's values"),
                        (["--points", "TILE=4"], "unknown parameter(s) ['TILE']"),
                        (["--points", "num_warps=2"], "violates ['C <= 16 * num_warps']"),
                        (["--points", "BV"], "is not KEY=VALUE"),
                        (["--seed", "no_such_seed"], "no seed 'no_such_seed'"),
                        (["--rounds", "0"], "--rounds must be >= 1"),
                        (["--lengths"], "give --lengths TOTAL:SEQS... and / or --workloads UUID..."),
                        (["--workloads", "zzzz"], "'zzzz' matches 0 workloads")):
        proc = run_benchmark(SCRIPT, [*args, "--out", str(tmp_path)], interpret=True, timeout=120)
        assert proc.returncode == 2 and words in proc.stderr, (args, proc.stderr[-2000:])
    assert not list(tmp_path.iterdir())
