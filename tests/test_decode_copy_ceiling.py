"""``benchmarks/decode_copy_ceiling.py``: GDN decode rows beside a copy of the state bytes (CPU plumbing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "operators" / "gdn_decode_qk4_v8_d128_k_last" / "solutions" / "seeds"

WRONG = '''
def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state):
    output.zero_()           # fast and wrong: the state copied, no decode step
    new_state.copy_(state)
'''


def _run(tmp_path: Path, *solutions: str) -> tuple[subprocess.CompletedProcess, dict]:
    cmd = [sys.executable, str(REPO / "benchmarks" / "decode_copy_ceiling.py"), "--batches", "1", "--rounds", "1",
           "--warmup", "0", "--iters", "1", "--out", str(tmp_path), "--name", "t"]
    for s in solutions:
        cmd += ["--solution", s]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    out = tmp_path / "decode_copy_ceiling_cpu_t.json"
    return proc, (json.loads(out.read_text()) if out.is_file() else {})


def test_rows_are_timed_and_checked_against_the_first_solution(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / "kernel.py").write_text(WRONG)
    (wrong / "solution.json").write_text(json.dumps({
        "name": "wrong", "definition": "gdn_decode_qk4_v8_d128_k_last",
        "spec": {"language": "python", "target_hardware": ["CPU"], "entry_point": "kernel.py::run",
                 "destination_passing_style": True}}))
    proc, data = _run(tmp_path, f"stream={SEEDS / 'gdn_decode_stream'}@STORE_POLICY=evict_last",
                      f"vtile={SEEDS / 'gdn_decode_vtile'}@BV=16,num_warps=2", f"wrong={wrong}")
    assert proc.returncode == 1, proc.stderr[-3000:]  # the wrong row fails the run
    rows = {r["row"]: r for r in data["rows"]}
    assert set(rows) == {"copy", "tile_copy", "tile_copy_ef", "stream", "vtile", "wrong"}
    assert rows["stream"]["check"] == rows["vtile"]["check"] == "ok"
    assert rows["wrong"]["check"].startswith("differs from stream: output")
    assert rows["copy"]["check"] is None and rows["copy"]["vs_copy"] == 1.0
    assert all(r["ms"] > 0 and r["state_bytes"] == 2 * 8 * 128 * 128 * 4 for r in rows.values())
    md = (tmp_path / "decode_copy_ceiling_cpu_t.md").read_text()
    assert "| 1 | wrong |" in md and "differs from stream" in md


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    proc, _ = _run(tmp_path, "copy=whatever")
    assert proc.returncode != 0 and "LABEL=SPEC with a new label" in proc.stderr
    proc, _ = _run(tmp_path, f"x={SEEDS / 'gdn_decode_stream'}@NOPE=1")
    assert proc.returncode != 0 and "NOPE" in proc.stderr
