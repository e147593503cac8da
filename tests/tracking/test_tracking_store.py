"""TrackingStore basics: URIs, experiments, campaign runs (real MLflow on sqlite)."""

from __future__ import annotations

import re

import json
from pathlib import Path

import pytest
from tracking_helpers import DEFINITION, fresh_db

from kernelopt.tracking import TrackingStore, default_tracking_uri, experiment_name
from kernelopt.tracking.base import decode_long_tag, encode_long_tag

CONFIG = {
    "agent": {"mode": "agent_assisted"},
    "generator": {"name": "offline", "seed": 3},
    "controller": {"name": "default", "budget": {"candidates": 20, "wall_s": 3600}},
    "harness": {"warmup": 10, "iterations": 50, "timer": "auto"},
    "notes": "x" * 7000,  # too long for a param: only in config.json
    "gate_workloads": ["a", "b"],
    "all_workloads": ["a", "b", "c"],
}


def test_default_store_lives_in_cwd_mlruns(tmp_path, monkeypatch, template_db):
    monkeypatch.chdir(tmp_path)
    fresh_db(template_db, tmp_path / "mlruns" / "mlflow.db")
    st = TrackingStore()
    assert st.tracking_uri == default_tracking_uri(tmp_path) == f"sqlite:///{tmp_path}/mlruns/mlflow.db"
    assert st.artifact_root == (tmp_path / "mlruns" / "artifacts").as_uri()
    run_id = st.start_campaign(DEFINITION, CONFIG, {})
    assert (tmp_path / "mlruns" / "mlflow.db").is_file()
    exp = st.client.get_experiment_by_name(experiment_name(DEFINITION))
    assert exp.artifact_location == (tmp_path / "mlruns" / "artifacts" / DEFINITION).as_uri()
    cfg = list((tmp_path / "mlruns" / "artifacts" / DEFINITION).glob(f"{run_id}/artifacts/config.json"))
    assert len(cfg) == 1 and json.loads(cfg[0].read_text()) == CONFIG


def test_bare_path_uri_and_bad_uri(tmp_path, template_db):
    fresh_db(template_db, tmp_path / "db" / "x.db")
    st = TrackingStore(str(tmp_path / "db" / "x.db"))
    assert st.tracking_uri == f"sqlite:///{tmp_path}/db/x.db"
    assert st.artifact_root == (tmp_path / "db" / "artifacts").as_uri()
    with pytest.raises(ValueError, match="tracking_uri"):
        TrackingStore(str(tmp_path / "not-a-db"))


def test_start_campaign_tags_params_and_config(store, tmp_path):
    run_id = store.start_campaign(DEFINITION, CONFIG, {"hardware": "H200", "mlflow.note.content": "hi",
                                                       "budget": {"candidates": 5}})
    run = store.client.get_run(run_id)
    tags, params = run.data.tags, run.data.params
    assert tags["kernelopt.kind"] == "campaign" and tags["kernelopt.definition"] == DEFINITION
    assert tags["kernelopt.agent_mode"] == "agent_assisted"
    assert tags["kernelopt.generator"] == "offline"
    assert tags["kernelopt.controller"] == "default"
    assert json.loads(tags["kernelopt.budget"]) == {"candidates": 5}  # explicit tag beats config
    assert tags["kernelopt.hardware"] == "H200"
    assert tags["mlflow.note.content"] == "hi"
    assert "kernelopt.git_commit" in tags  # tests run inside the repository
    assert params["harness.iterations"] == "50" and params["generator.seed"] == "3"
    assert json.loads(params["controller.budget.wall_s"]) == 3600
    assert "notes" not in params
    assert store.read_artifact_json(run_id, "config.json") == CONFIG
    assert "agent_mode: agent_assisted" not in (store.read_artifact_text(run_id, "config.yaml") or "")
    assert "mode: agent_assisted" in store.read_artifact_text(run_id, "config.yaml")
    assert store.campaign_workloads(run_id) == (["a", "b"], ["a", "b", "c"])
    assert run.info.status == "RUNNING"


def test_artefact_reads_draw_no_progress_bars(store, capfd):
    """MLflow's per-download tqdm bars (dozens per campaign, between the controller's lines) stay off."""
    run_id = store.start_campaign(DEFINITION, CONFIG, {})
    capfd.readouterr()
    assert store.read_artifact_json(run_id, "config.json") == CONFIG
    out, err = capfd.readouterr()
    assert "Downloading artifacts" not in out + err


def test_campaign_exists_end_and_resume(store):
    run_id = store.start_campaign(DEFINITION, {}, {})
    assert store.campaign_exists(run_id)
    assert not store.campaign_exists("0" * 32)
    assert store.list_campaigns(DEFINITION) == [run_id]
    assert store.list_campaigns("no_such_definition") == []
    with pytest.raises(ValueError, match="status must be one of"):
        store.end_campaign(run_id, "DONE")
    store.end_campaign(run_id, "killed")
    assert store.client.get_run(run_id).info.status == "KILLED"
    assert store.resume_campaign(run_id) == []
    assert store.client.get_run(run_id).info.status == "RUNNING"
    store.end_campaign(run_id)
    assert store.client.get_run(run_id).info.status == "FINISHED"
    with pytest.raises(ValueError, match="not found"):
        store.end_campaign("f" * 32)
    with pytest.raises(TypeError, match="config must be a dict"):
        store.start_campaign(DEFINITION, ["x"], {})  # type: ignore[arg-type]


def test_a_campaign_is_not_resumed_on_another_card(store):
    """Its latencies and the new machine's would meet in one leaderboard and one promotion gate; another count of
    the same card is fine."""
    from kernelopt.tracking.campaigns import card_of, hardware_name

    run_id = store.start_campaign(DEFINITION, {}, {})
    here = hardware_name()
    assert store.client.get_run(run_id).data.tags["kernelopt.hardware"] == here
    store.end_campaign(run_id, "killed")
    store.client.set_tag(run_id, "kernelopt.hardware", "1x NVIDIA H200")
    if "NVIDIA H200" not in here:
        with pytest.raises(ValueError, match=f"measured on 1x NVIDIA H200; this machine is {re.escape(here)}"):
            store.resume_campaign(run_id)
        assert store.client.get_run(run_id).info.status == "KILLED"  # nothing reopened
    store.client.set_tag(run_id, "kernelopt.hardware", here)
    assert store.resume_campaign(run_id) == []
    assert card_of("8x NVIDIA H200") == card_of("1x NVIDIA H200") == "NVIDIA H200"
    assert card_of("cpu:x86_64") == "cpu:x86_64"


def test_long_tags_are_chunked_and_rebuilt(store):
    uuids = [f"{i:08d}-0000-4000-8000-000000000000" for i in range(400)]  # ~16 kB of JSON
    encoded = encode_long_tag("k", json.dumps(uuids))
    assert len(encoded) > 2 and all(len(v) <= 8000 for v in encoded.values())
    assert json.loads(decode_long_tag(encoded, "k")) == uuids
    run_id = store.start_campaign(DEFINITION, {"all_workloads": uuids}, {})
    store.set_workloads(run_id, gate=uuids[:3])
    assert store.campaign_workloads(run_id) == (uuids[:3], uuids)
    with pytest.raises(ValueError, match="list of workload uuids"):
        store.set_workloads(run_id, gate="abc")  # type: ignore[arg-type]


def test_second_store_on_same_db_sees_same_experiment(store, tmp_path: Path):
    run_id = store.start_campaign(DEFINITION, {}, {})
    other = TrackingStore(store.tracking_uri)
    assert other.experiment_id(DEFINITION, create=False) == store.experiment_id(DEFINITION)
    assert other.campaign_exists(run_id)


def test_a_new_sqlite_store_appears_whole_or_not_at_all(tmp_path, monkeypatch):
    """Ctrl-C while MLflow made a new store's tables left a half-made database no command could open again
    ('table _alembic_tmp_experiments already exists'): the tables are made in a file beside it, renamed in place."""
    from kernelopt.tracking import TrackingStore, base

    db = tmp_path / "s" / "mlflow.db"
    real = base._migrated_client

    def interrupted(uri):
        if ".creating-" in uri:
            real(uri)  # the tables made, then the interrupt before the rename
            raise KeyboardInterrupt
        return real(uri)

    monkeypatch.setattr(base, "_migrated_client", interrupted)
    with pytest.raises(KeyboardInterrupt):
        TrackingStore(f"sqlite:///{db}")
    assert not db.exists() and not list(db.parent.glob("mlflow.db.creating-*"))
    (db.parent / "mlflow.db.creating-1-dead").write_text("")  # a creation killed outright (SIGKILL) left this
    monkeypatch.setattr(base, "_migrated_client", real)
    store = TrackingStore(f"sqlite:///{db}")
    assert store.start_campaign("rmsnorm_h4096", {}, {})
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith("mlflow.db")) == ["mlflow.db",
                                                                                           "mlflow.db.init.lock"]


def test_a_half_migrated_store_says_what_to_do(tmp_path):
    import sqlite3

    from kernelopt.tracking.base import half_migrated

    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).execute("create table _alembic_tmp_experiments (x int)").connection.commit()
    assert half_migrated(empty) == (f"tracking store {empty}: its first use was interrupted while MLflow made its "
                                    f"tables, and it holds no run: delete it (rm {empty}) and run again")
    used = tmp_path / "used.db"
    con = sqlite3.connect(used)
    con.execute("create table runs (run_uuid text)")
    con.execute("insert into runs values ('a'), ('b')")
    con.commit()
    assert "it holds 2 run(s): restore it from a copy made before the upgrade" in half_migrated(used)


def test_a_server_uri_nothing_answers_at_is_one_line_at_once(tmp_path):
    """MLflow's client retried a refused connection for about four minutes, then printed a traceback."""
    import socket
    import time

    from kernelopt.tracking import TrackingStore

    with socket.socket() as s:  # a local port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(ValueError, match=rf"^no MLflow server answers at http://127.0.0.1:{port} \(.*refused"):
        TrackingStore(f"http://127.0.0.1:{port}")
    assert time.monotonic() - started < 10
    with pytest.raises(ValueError, match=r"^tracking uri htp://127.0.0.1:1: Model registry functionality is "
                                         r"unavailable; got unsupported URI"):
        TrackingStore("htp://127.0.0.1:1")
