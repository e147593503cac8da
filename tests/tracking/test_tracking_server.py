"""A real ``mlflow server`` (sqlite backend, proxied artefacts) driven through TrackingStore over HTTP,
read back through the REST API, and its UI screenshotted in headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from tracking_helpers import (
    DEFINITION,
    UUIDS,
    fresh_db,
    make_result,
    make_solution,
    params,
    png_colors,
)

from kernelopt.data import Decision
from kernelopt.tracking import TrackingStore

pytestmark = pytest.mark.slow
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
                 if p and Path(p).exists()), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rest(url: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


@pytest.fixture(scope="module")
def server(tmp_path_factory, template_db) -> str:
    """URL of an ``mlflow server`` subprocess (own process group, stopped afterwards)."""
    root = tmp_path_factory.mktemp("server")
    db = fresh_db(template_db, root / "mlflow.db")
    port = _free_port()
    log = (root / "server.log").open("w")
    env = dict(os.environ, MLFLOW_SERVER_ENABLE_JOB_EXECUTION="false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", f"sqlite:///{db}",
         "--artifacts-destination", str(root / "artifacts"), "--host", "127.0.0.1", "--port", str(port),
         "--workers", "1"],
        stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 240
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                tail = (root / "server.log").read_text()[-3000:]
                pytest.fail(f"mlflow server did not come up (rc={proc.poll()}):\n{tail}")
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def logged(server) -> dict:
    """A campaign logged through the HTTP store: two candidates, a decision, a champion."""
    st = TrackingStore(server)
    assert st.artifact_root is None  # the server decides (proxied mlflow-artifacts:/)
    camp = st.start_campaign(DEFINITION, {"agent": {"mode": "full_agent"}, "all_workloads": UUIDS}, {})
    s1, s2 = make_solution("a", 64), make_solution("b", 128)
    r1 = st.log_candidate(camp, s1, make_result(s1, [1.0, 2.0, 3.0]), stage="gate", params=params())
    r2 = st.log_candidate(camp, s2, make_result(s2, [None, 2.0, 3.0]), stage="gate", params=params())
    st.log_decision(camp, Decision(action="gate", reason="first", candidate_run_ids=[r1, r2]))
    TrackingStore(server).log_decision(camp, Decision(action="stop", reason="second"))  # restarted writer
    st.set_champion(DEFINITION, st.register(DEFINITION, r1, {"noise_floor": 0.03}))
    return {"store": st, "campaign": camp, "runs": [r1, r2], "solutions": [s1, s2],
            "experiment": st.experiment_of(camp)}


def test_campaign_over_http_reads_back_through_rest(server, logged):
    st, camp, (r1, r2) = logged["store"], logged["campaign"], logged["runs"]
    state = TrackingStore(server).load_state(camp)
    assert [c.run_id for c in state.candidates] == [r1, r2]
    assert state.candidates[0].mean_latency_ms == pytest.approx(2.0) and state.candidates[1].pass_count == 2
    assert state.champion.run_id == r1 and state.champion.noise_floor == pytest.approx(0.03)
    assert [d.reason for d in state.decisions] == ["first", "second"] and state.all_workloads == UUIDS
    assert st.download_solution(r2) == logged["solutions"][1]
    assert st.find_evaluated(camp, logged["solutions"][0].hash(), params()["settings_key"], "gate") == r1

    found = _rest(server, "/api/2.0/mlflow/runs/search", {
        "experiment_ids": [logged["experiment"]],
        "filter": f"tags.`mlflow.parentRunId` = '{camp}' and attributes.status = 'FINISHED'"})
    runs = {r["info"]["run_id"]: r for r in found["runs"]}
    assert set(runs) == {r1, r2}
    tags = {t["key"]: t["value"] for t in runs[r2]["data"]["tags"]}
    assert tags["kernelopt.status"] == "FAILED" and tags["kernelopt.stage"] == "gate"
    metrics = {m["key"]: m["value"] for m in runs[r1]["data"]["metrics"]}
    assert metrics["mean_latency_ms"] == pytest.approx(2.0) and metrics[f"lat_ms.{UUIDS[2]}"] == 3.0
    arts = _rest(server, f"/api/2.0/mlflow/artifacts/list?run_id={r1}")
    assert {"solution", "traces.jsonl", "result.json"} <= {f["path"] for f in arts["files"]}
    alias = _rest(server, f"/api/2.0/mlflow/registered-models/alias?name=kernelopt.{DEFINITION}&alias=champion")
    assert alias["model_version"]["run_id"] == r1
    assert [r["name"] for r in TrackingStore(server).leaderboard(DEFINITION)] == ["a", "b"]


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (Debian package: chromium)")
def test_ui_experiment_page_screenshot(server, logged, tmp_path):
    shot = tmp_path / "experiment.png"
    url = f"{server}/#/experiments/{logged['experiment']}/runs"
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'ud'}",
         f"--screenshot={shot}", "--window-size=1400,900", "--virtual-time-budget=15000", url],
        capture_output=True, text=True, timeout=180, check=False)
    assert shot.is_file(), f"no screenshot (rc={proc.returncode}): {proc.stderr[-2000:]}"
    size, colors = png_colors(shot)
    assert size == (1400, 900)
    assert shot.stat().st_size > 20_000 and colors > 50, (shot.stat().st_size, colors)  # a rendered page
    found = _rest(server, "/api/2.0/mlflow/runs/search", {"experiment_ids": [logged["experiment"]]})
    assert {r["info"]["run_id"] for r in found["runs"]} == {logged["campaign"], *logged["runs"]}


def test_a_server_store_prints_nothing_of_its_own(server, capfd, caplog):
    """(Last in the file: it adds runs to the experiment the tests above read whole.) MLflow printed 'View run ... / View experiment ...' for every run it ended against a server, and 'Waiting up
    to 300 seconds for model version...' for every registration: lines between the controller's."""
    st = TrackingStore(server)
    camp = st.start_campaign(DEFINITION, {}, {})
    sol = make_solution("quiet", 96)
    run = st.log_candidate(camp, sol, make_result(sol, [1.0, 1.0, 1.0]), stage="sweep", params=params())
    st.register(DEFINITION, run, {})
    out, err = capfd.readouterr()
    assert "View run" not in out + err and "View experiment" not in out + err
    assert "Waiting up to" not in err + caplog.text
