"""benchmarks/prefill_onelaunch_resources.py: the one-launch GDN prefill kernel compiled for sm_90 here (no GPU), its
registers, spill stack and spill instructions with the source lines they come from; bad points and the interpreter
are refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

from operator_helpers import run_benchmark

SCRIPT = "benchmarks/prefill_onelaunch_resources.py"


def test_a_point_reports_its_spills_and_where_they_come_from(tmp_path: Path) -> None:
    proc = run_benchmark(SCRIPT, ["--points", "64,32,64,8", "--name", "t", "--out", str(tmp_path)], timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "prefill_onelaunch_resources_t.json").read_text())
    (row,) = data["rows"]
    assert (row["C"], row["BV"], row["BV_O"], row["num_warps"]) == (64, 32, 64, 8)
    assert row["registers"] <= 255 and row["stack_bytes"] >= 0 and row["spill_stores"] >= 0, row
    # every spill instruction is attributed to a line of the seed's files, the busiest first
    assert all(where.split(":")[0].endswith(".py") and n > 0 for where, n in row["spill_lines"]), row
    assert [n for _, n in row["spill_lines"]] == sorted((n for _, n in row["spill_lines"]), reverse=True)
    assert (row["spill_stores"] > 0) == bool(row["spill_lines"])
    assert "| 64,32,64,8 |" in (tmp_path / "prefill_onelaunch_resources_t.md").read_text()


def test_bad_points_and_the_interpreter_are_refused(tmp_path: Path) -> None:
    for args, words in ((["--points", "48,32,64,8"], "C 32 or 64"), (["--points", "64,32"], "C,BV,BV_O,num_warps")):
        proc = run_benchmark(SCRIPT, [*args, "--out", str(tmp_path)], timeout=120)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr[-2000:]
    proc = run_benchmark(SCRIPT, ["--out", str(tmp_path)], interpret=True, timeout=120)
    assert proc.returncode == 2 and "TRITON_INTERPRET" in proc.stderr, proc.stderr[-2000:]
    assert not list(tmp_path.iterdir())


def test_the_walk_ahead_seed_is_compiled_under_its_own_name(tmp_path: Path) -> None:
    """--seed gdn_prefill_onelaunch_pf: that seed's kernel (its walk loads a chunk ahead), in a file of its own; an
    unknown seed is refused."""
    proc = run_benchmark(SCRIPT, ["--seed", "gdn_prefill_onelaunch_pf", "--points", "64,32,64,8", "--name", "t",
                                  "--out", str(tmp_path)], timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "prefill_onelaunch_resources_onelaunch_pf_t.json").read_text())
    assert data["seed"] == "gdn_prefill_onelaunch_pf" and data["rows"][0]["registers"] <= 255
    assert "(`gdn_prefill_onelaunch_pf`)" in (tmp_path / "prefill_onelaunch_resources_onelaunch_pf_t.md").read_text()
    proc = run_benchmark(SCRIPT, ["--seed", "gdn_prefill_nope", "--out", str(tmp_path)], timeout=120)
    assert proc.returncode == 2 and "--seed" in proc.stderr, proc.stderr[-2000:]
