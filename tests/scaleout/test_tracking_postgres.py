"""Team tracking: ``scripts/mlflow_server.sh`` starts PostgreSQL + ``mlflow server`` on loopback, and a
4-job joblib multirun (two agent modes x two seeds) writes four campaigns to it concurrently."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from scaleout_helpers import (
    ROOT,
    TINY_CAMPAIGN,
    cli,
    fixture_solution,
    free_port,
    needs_postgres,
)

from kernelopt.data import EvalResult, HarnessSettings, LatencyStats, WorkloadResult
from kernelopt.operators import load_operator
from kernelopt.tracking import TrackingStore

pytestmark = [pytest.mark.slow, *needs_postgres()]
SCRIPT = ROOT / "scripts" / "mlflow_server.sh"
DEFINITION = "rmsnorm_h4096"
#: Campaigns of one definition share its registry alias `champion`. Two races are known and reported
#: (they are not tracking-store faults): (1) the very first `set_registered_model_alias` of two campaigns at
#: once makes MLflow's SQL store INSERT the alias twice, which PostgreSQL rejects (UniqueViolation; SQLite
#: serialises writers) - the test therefore seeds a (very slow) champion first, so every promotion is an
#: UPDATE; (2) a campaign whose fresh champion is replaced by another campaign's re-decides `promote` of the
#: same run and campaign.py stops with "no progress" - a 99 % improvement bar keeps each campaign to its
#: first promotion.
NO_REPROMOTE = ["controller.min_improvement=0.99"]


def _seed_slow_champion(store: TrackingStore) -> tuple[str, str]:
    """A finished campaign whose one candidate (1e6 ms) holds the champion alias: (campaign, run)."""
    w = load_operator(DEFINITION).workloads[0]
    sol = fixture_solution("rmsnorm_triton_ok")
    lat = LatencyStats(mean_ms=1e6, trial_medians_ms=[1e6], p95_ms=1e6, timer="cpu_wall")
    wr = WorkloadResult(uuid=w.uuid, axes=dict(w.axes), status="PASSED", latency=lat, reference_latency=lat,
                        speedup=1.0, max_abs_error=0.0, max_rel_error=0.0, matched_ratio=1.0, log="")
    res = EvalResult(definition=DEFINITION, solution=sol.name, solution_hash=sol.hash(), results=[wr],
                     environment={"hardware": "cpu"}, timer="cpu_wall", wall_s=1.0)
    camp = store.start_campaign(DEFINITION, {"agent": {"mode": "seeded"}, "all_workloads": [w.uuid]}, {})
    run = store.log_candidate(camp, sol, res, stage="sweep", params={"settings_key": HarnessSettings().key()})
    store.set_champion(DEFINITION, store.register(DEFINITION, run, {}))
    store.end_campaign(camp)
    return camp, run


@pytest.fixture(scope="module")
def pg_server(tmp_path_factory):
    """A PostgreSQL-backed ``mlflow server`` started by the project's script (stopped afterwards)."""
    state = tmp_path_factory.mktemp("mlflow-pg")
    env = {**os.environ, "PG_PORT": str(free_port()), "MLFLOW_PORT": str(free_port()), "MLFLOW_WORKERS": "1",
           "PYTHON": sys.executable}
    try:
        started = subprocess.run(["bash", str(SCRIPT), "start", str(state)], env=env, capture_output=True,
                                 text=True, timeout=400, check=False)
        assert started.returncode == 0, \
            f"server did not start (rc={started.returncode}):\n{started.stderr[-4000:]}"
        url = started.stdout.strip().splitlines()[-1]
        assert url == f"http://127.0.0.1:{env['MLFLOW_PORT']}"
        yield {"url": url, "pg_port": int(env["PG_PORT"]), "state": state}
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", str(state)], env=env, capture_output=True, timeout=120,
                       check=False)


def test_four_concurrent_campaigns_land_in_postgres(pg_server, tmp_path):
    import psycopg2

    url = pg_server["url"]
    seed_campaign, seed_run = _seed_slow_champion(TrackingStore(url))
    r = cli(["optimize", "-m", "agent=full_agent,agent_assisted", "campaign.seed=0,1",
             "hydra/launcher=joblib", "hydra.launcher.n_jobs=4", "tracking=server", f"tracking.uri={url}",
             "executor=cpu", *TINY_CAMPAIGN, *NO_REPROMOTE],
            tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    sweep = next((tmp_path / "multirun").glob("*/*"))
    assert sorted(p.name for p in sweep.iterdir() if p.name.isdigit()) == ["0", "1", "2", "3"]

    store = TrackingStore(url)
    campaigns = [c for c in store.list_campaigns(DEFINITION) if c != seed_campaign]
    assert len(campaigns) == 4, campaigns
    modes = sorted(store.client.get_run(c).data.tags["kernelopt.agent_mode"] for c in campaigns)
    assert modes == ["agent_assisted", "agent_assisted", "full_agent", "full_agent"]
    candidates = 0
    for c in campaigns:
        state = store.load_state(c)
        assert state.candidates and state.decisions, c  # every campaign logged evaluations and decisions
        assert store.client.get_run(c).info.status == "FINISHED"
        candidates += len(state.candidates)
    champion = store.get_champion(DEFINITION)  # some campaign's kernel displaced the seeded 1e6 ms one
    assert champion is not None and champion.run_id != seed_run
    assert store.client.get_run(champion.run_id).data.tags["kernelopt.campaign"] in campaigns

    # the runs really are rows of the PostgreSQL backend store
    con = psycopg2.connect(host="127.0.0.1", port=pg_server["pg_port"],
                           user="kernelopt", dbname="mlflow")
    try:
        with con.cursor() as cur:
            cur.execute("select count(*) from runs r join tags t on t.run_uuid = r.run_uuid "
                        "where t.key = 'kernelopt.kind' and t.value = 'campaign'")
            assert cur.fetchone()[0] == 4 + 1  # and the seeded one
            cur.execute("select count(*) from runs r join tags t on t.run_uuid = r.run_uuid "
                        "where t.key = 'kernelopt.kind' and t.value = 'candidate' and r.status = 'FINISHED'")
            assert cur.fetchone()[0] == candidates + 1
            cur.execute("select count(*) from model_versions where name = %s", (f"kernelopt.{DEFINITION}",))
            assert cur.fetchone()[0] >= 2
    finally:
        con.close()
    # artefacts went through the server into its artifact root
    assert any((pg_server["state"] / "artifacts").rglob("solution.json"))
