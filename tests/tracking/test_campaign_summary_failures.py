"""benchmarks/campaign_summary.py on a real sqlite store: a candidate that failed is listed with its first
failure (status and last log line), so a campaign summary brought back from the GPU says why without the store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
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


def _summary(store_uri: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "campaign_summary.py"), DEFINITION,
                           "--name", "summary", "--tracking-uri", store_uri, "--out", str(tmp_path / "results")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False)


def test_the_summary_is_of_the_latest_campaign_and_its_mean_speedup_unrounded(store, tmp_path: Path) -> None:
    """It took the oldest campaign of a store holding several (``list_campaigns`` is oldest first), and averaged
    the table's speedups rounded to 0.1 (a CPU campaign's 0.006x read 0.0x)."""
    old = store.start_campaign(DEFINITION, {"agent": {"mode": "assisted"}}, {})
    store.log_candidate(old, make_solution("old", block=16), make_result(make_solution("old", block=16), [1.0, 1.0]),
                        stage="sweep", params=params())
    new = store.start_campaign(DEFINITION, {"agent": {"mode": "assisted"}}, {})
    sol = make_solution("new", block=32)
    run = store.log_candidate(new, sol, make_result(sol, [300.0, 500.0], ref_ms=2.0), stage="sweep", params=params())
    store.set_champion(DEFINITION, store.register(DEFINITION, run, {}))
    proc = _summary(store.tracking_uri, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    payload = json.loads((tmp_path / "results" / "summary.json").read_text())
    assert payload["campaign_run_id"] == new
    assert payload["champion_mean_speedup_vs_reference"] == pytest.approx((2 / 300 + 2 / 500) / 2)
    assert "Mean per-workload speedup vs the PyTorch reference: 0.0053x" in proc.stdout
    assert "Command: not recorded (`campaign_summary.py --command` names it)" in proc.stdout  # was "Command: ``"


def test_a_mistyped_store_is_refused_and_not_made(tmp_path: Path) -> None:
    proc = _summary(f"sqlite:///{tmp_path / 'typo' / 'mlflow.db'}", tmp_path)
    assert proc.returncode == 1 and "no tracking store at" in proc.stderr
    assert not (tmp_path / "typo").exists()


def test_the_summary_names_the_device_ceilings_the_analysis_used(store, tmp_path: Path) -> None:
    """The ceilings in ``bands.json`` (shipped, or measured by the campaign on a GPU kernelopt has none for: call LB
    read them from the artefact by hand) are in the summary."""
    camp = store.start_campaign(DEFINITION, {"agent": {"mode": "assisted"}}, {})
    sol = make_solution("good", block=16)
    store.log_candidate(camp, sol, make_result(sol, [1.0, 1.0]), stage="sweep", params=params())
    ceilings = {"device": "NVIDIA L40S", "copy_bandwidth_bytes_per_s": 0.86e12, "measured_by": "the campaign",
                "matmul_flops_per_s": {"bf16": 3.6e14, "fp8": 7.3e14, "fp32": 9.1e13}}
    bands = tmp_path / "bands.json"
    bands.write_text(json.dumps({"device": "NVIDIA L40S", "ceilings": ceilings, "bottlenecks": {}, "notes": []}))
    store.upload_file(camp, bands)
    proc = _summary(store.tracking_uri, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert ("Device ceilings of NVIDIA L40S: copy 0.86 TB/s, bf16 360 / fp8 730 TFLOP/s (the campaign)"
            in proc.stdout)
    payload = json.loads((tmp_path / "results" / "summary.json").read_text())
    assert payload["device"] == "NVIDIA L40S" and payload["ceilings"] == ceilings
