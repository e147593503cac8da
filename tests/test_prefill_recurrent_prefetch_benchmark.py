"""benchmarks/prefill_recurrent_prefetch.py: the token-recurrent GDN prefill kernel with its inputs prefetched 2-3
tokens ahead gives the seed's outputs bit for bit (checked in the Triton interpreter here; on a GPU the same script
times it), and bad configurations are refused with a clear message."""

from __future__ import annotations

import json
from pathlib import Path

from operator_helpers import run_benchmark

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "prefill_recurrent_prefetch.py"


def test_deeper_prefetch_gives_the_seeds_outputs_bit_for_bit(tmp_path: Path) -> None:
    proc = run_benchmark(SCRIPT, ["--lengths", "6:1", "--configs", "2,8,4", "3,32,4", "--iters", "1", "--warmup", "0",
                                  "--out", str(tmp_path)], interpret=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (out,) = tmp_path.glob("prefill_recurrent_prefetch_*.json")
    rows = json.loads(out.read_text())["rows"]
    assert [r["config"] for r in rows] == ["seed", "2,8,4", "3,32,4"]
    assert all(r["identical"] is True and r["diff"] < 1e-6 and r["tokens"] == 6 for r in rows), rows
    assert "| 6:1 | 3,32,4 |" in out.with_suffix(".md").read_text()


def test_bad_configurations_and_lengths_are_refused(tmp_path: Path) -> None:
    for args, words in ((["--configs", "4,8,4"], "DEPTH must be 1, 2 or 3"),
                        (["--configs", "2,3,4"], "BV must divide 128"),
                        (["--lengths", "2:5"], "--lengths")):
        proc = run_benchmark(SCRIPT, [*args, "--out", str(tmp_path)], interpret=True, timeout=120)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr[-2000:]
    assert not list(tmp_path.iterdir())
    taken = tmp_path / "a_file"
    taken.write_text("")
    proc = run_benchmark(SCRIPT, ["--out", str(taken)], interpret=True, timeout=120)  # before anything is measured
    assert proc.returncode == 2 and "give a folder" in proc.stderr and "seed" not in proc.stderr, proc.stderr[-2000:]
