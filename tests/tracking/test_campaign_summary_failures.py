"""benchmarks/campaign_summary.py on a real sqlite store: a candidate that failed is listed with its first
failure (status and last log line), so a campaign summary brought back from the GPU says why without the store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tracking_helpers import DEFINITION, UUIDS, make_result, make_solution, params

ROOT = Path(__file__).resolve().parents[2]


def test_the_summary_says_why_a_candidate_failed(store, tmp_path: Path) -> None:
    camp = store.start_campaign(DEFINITION, {"agent": {"mode": "assisted"}}, {})
    good, bad = make_solution("good", block=16), make_solution("bad", block=32)
    store.log_candidate(camp, good, make_result(good, [1.0, 1.0]), stage="sweep", params=params())
    store.log_candidate(camp, bad, make_result(bad, [1.0, None]), stage="gate",
                        params=params(direction="more_parallelism"))
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "campaign_summary.py"), DEFINITION,
                           "--name", "summary", "--tracking-uri", store.tracking_uri, "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    md = (out / "summary.md").read_text()
    why = md.split("## Why candidates failed")[1]
    assert f"| bad | gate | more_parallelism | RUNTIME_ERROR: Traceback: boom on {UUIDS[1]} |" in why
    assert "| good |" not in why
    board = json.loads((out / "summary.json").read_text())["leaderboard"]
    assert [r["failure"] for r in board] == [None, f"RUNTIME_ERROR: Traceback: boom on {UUIDS[1]}"]
