"""Hydra launchers end to end through the ``kernelopt`` CLI: a submitit local-executor job, and the
documented Slurm launcher config composed onto the plugin's schema."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from scaleout_helpers import TINY_CAMPAIGN, cli

from kernelopt.cli.main import CONF_DIR
from kernelopt.cli.schema import register_schemas


def _have_submitit() -> bool:
    try:
        return importlib.util.find_spec("hydra_plugins.hydra_submitit_launcher") is not None
    except ModuleNotFoundError:  # no hydra_plugins namespace at all
        return False


HAVE_SUBMITIT = _have_submitit()
NO_SUBMITIT = "hydra-submitit-launcher is not installed (pip install 'kernelopt[scale]')"


def _campaign_rows(db: Path) -> tuple[list[str], list[str]]:
    """(campaign agent modes, candidate statuses) recorded in a sqlite MLflow store."""
    con = sqlite3.connect(db)
    try:
        modes = [v for (v,) in con.execute("select value from tags where key = 'kernelopt.agent_mode'")]
        status = [v for (v,) in con.execute("select value from tags where key = 'kernelopt.status'")]
    finally:
        con.close()
    return modes, status


@pytest.mark.skipif(not HAVE_SUBMITIT, reason=NO_SUBMITIT)
def test_slurm_launcher_config_composes_onto_the_plugin_schema():
    register_schemas()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(config_name="optimize",
                      overrides=["hydra/launcher=slurm_gpu", "hydra.launcher.partition=h200"],
                      return_hydra_config=True)
    launcher = cfg.hydra.launcher
    assert launcher._target_.endswith("submitit_launcher.SlurmLauncher")
    assert launcher.partition == "h200" and launcher.gpus_per_node == 1 and launcher.tasks_per_node == 1
    assert launcher.timeout_min == 240


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_SUBMITIT, reason=NO_SUBMITIT)
def test_submitit_local_job_runs_a_campaign(tmp_path):
    db = tmp_path / "store" / "mlflow.db"
    r = cli(["optimize", "-m", "hydra/launcher=submitit_local", "hydra.launcher.timeout_min=10",
             f"tracking.uri=sqlite:///{db}", "executor=cpu", *TINY_CAMPAIGN], tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    jobs = list((tmp_path / "multirun").glob("*/*/.submitit/*/*_result.pkl"))
    assert len(jobs) == 1, jobs  # the job went through submitit, not in-process
    log = next(jobs[0].parent.glob("*_log.out")).read_text()
    assert "campaign" in log and "Job completed successfully" in log
    modes, status = _campaign_rows(db)
    assert modes == ["agent_assisted"] and status and "ALL_PASSED" in status

