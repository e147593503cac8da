"""benchmarks/prefill_walk_resources.py: the GDN prefill state walk and output kernels of wy3h and wy3o compiled for
sm_90 here (no GPU), their registers and spills side by side with the scratch each writes between them; bad points,
bad call shapes and the interpreter are refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

from operator_helpers import run_benchmark

SCRIPT = "benchmarks/prefill_walk_resources.py"


def test_a_point_compiles_both_designs_and_counts_their_scratch(tmp_path: Path) -> None:
    proc = run_benchmark(SCRIPT, ["--points", "32,64,128,8,4,2", "--tokens", "8192", "--seqs", "57", "--name", "t",
                                  "--out", str(tmp_path)], timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "prefill_walk_resources_t.json").read_text())
    assert [(r["point"], r["design"]) for r in data["rows"]] == [("32,64,128,8,4,2", d) for d in ("wy3h", "wy3o")]
    for row in data["rows"]:
        for role in ("walk", "output"):
            assert 0 < row[role]["registers"] <= 255 and row[role]["stack_bytes"] >= 0, row
    # wy3h: (ceil(8192 / 32) + 57) chunk slots x 8 heads x 128 x 128 bf16; wy3o: 8,192 tokens x 8 heads x 128 fp32
    assert [round(r["scratch_mb"], 1) for r in data["rows"]] == [82.1, 33.6]
    assert "| 32,64,128,8,4,2 | wy3o |" in (tmp_path / "prefill_walk_resources_t.md").read_text()


def test_bad_points_shapes_and_the_interpreter_are_refused(tmp_path: Path) -> None:
    for args, words in ((["--points", "48,32,64,4,4,2"], "C 32 or 64"), (["--points", "64,32,64,4"], "num_stages"),
                        (["--tokens", "10", "--seqs", "11"], "1 <= seqs <= tokens")):
        proc = run_benchmark(SCRIPT, [*args, "--out", str(tmp_path)], timeout=120)
        assert proc.returncode == 2 and words in proc.stderr, (args, proc.stderr[-2000:])
    proc = run_benchmark(SCRIPT, ["--out", str(tmp_path)], interpret=True, timeout=120)
    assert proc.returncode == 2 and "TRITON_INTERPRET" in proc.stderr, proc.stderr[-2000:]
    assert not list(tmp_path.iterdir())
