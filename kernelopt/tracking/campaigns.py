"""Campaign (parent) runs: start, check, resume, end; the workload lists the controller uses."""

from __future__ import annotations

import json
import platform
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from kernelopt.tracking import names
from kernelopt.tracking.base import (
    MAX_PARAM_VALUE,
    StoreBase,
    decode_long_tag,
    encode_long_tag,
    flatten,
    stringify,
)

_TAG_FROM_CONFIG = {  # campaign tag -> config paths tried in order
    "agent_mode": (("agent", "mode"), ("agent", "name"), ("agent",), ("mode",)),
    "generator": (("generator", "name"), ("generator", "kind"), ("generator",)),
    "controller": (("controller", "name"), ("controller",)),
    "budget": (("controller", "budget"), ("budget",)),
    "operator": (("operator", "name"), ("operator",)),
}
_END_STATUSES = ("FINISHED", "FAILED", "KILLED")


def git_commit(cwd: str | Path | None = None) -> str | None:
    """``git rev-parse HEAD`` of ``cwd`` (``None`` outside a repository or without git)."""
    if shutil.which("git") is None:
        return None
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def card_of(hardware: str) -> str:
    """The card of a ``hardware_name()`` (``"8x NVIDIA H200"`` -> ``"NVIDIA H200"``): how many is not what."""
    return re.sub(r"^\d+x ", "", hardware)


def hardware_name() -> str:
    """GPU name from ``nvidia-smi`` when present, else the CPU architecture."""
    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=10, check=False)
            gpus = [g.strip() for g in out.stdout.splitlines() if g.strip()]
            if out.returncode == 0 and gpus:
                return f"{len(gpus)}x {gpus[0]}"
        except (OSError, subprocess.SubprocessError):
            pass
    return f"cpu:{platform.machine()}"


def _lookup(config: dict[str, Any], path: tuple[str, ...]) -> Any:
    cur: Any = config
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def _qualify(key: str) -> str:
    return key if "." in key else f"kernelopt.{key}"


class CampaignsMixin(StoreBase):
    """Start, inspect, resume and end campaign runs."""

    def start_campaign(self, definition: str, config: dict[str, Any], tags: dict[str, Any]) -> str:
        """Create the parent run of a campaign in the definition's experiment.

        Tags: ``kernelopt.kind=campaign``, the definition, agent mode, generator, controller, budget,
        operator (from ``tags`` or, failing that, from the config), git commit and hardware. Plain tag
        keys get the ``kernelopt.`` prefix; keys with a dot are used as given. The flattened config is
        logged as params where it fits MLflow's limits; the whole config as ``config.json`` and
        ``config.yaml``. ``config["gate_workloads"]`` / ``config["all_workloads"]`` (lists of uuids) are
        recorded for :meth:`load_state`.

        Returns:
            The campaign run id.
        """
        if not isinstance(config, dict):
            raise TypeError(f"start_campaign: config must be a dict, got {type(config).__name__}")
        exp_id = self.experiment_id(definition)
        run_tags: dict[str, str] = {names.KIND: "campaign", names.DEFINITION: definition}
        for tag, paths in _TAG_FROM_CONFIG.items():
            for path in paths:
                value = _lookup(config, path)
                if value is not None:
                    run_tags[_qualify(tag)] = stringify(value)[:MAX_PARAM_VALUE]
                    break
        commit = git_commit()
        if commit:
            run_tags["kernelopt.git_commit"] = commit
            run_tags["mlflow.source.git.commit"] = commit
        run_tags[names.HARDWARE] = hardware_name()
        run_tags.update({_qualify(str(k)): stringify(v) for k, v in (tags or {}).items()})
        run_name = run_tags.pop(names.RUN_NAME, None) or f"{definition}-{time.strftime('%Y%m%d-%H%M%S')}"
        run = self.client.create_run(exp_id, tags=run_tags, run_name=run_name)
        run_id = run.info.run_id
        self._run_experiment[run_id] = exp_id
        params = {}
        for key, value in flatten(config):
            text = stringify(value)
            if key and names.valid_key(key) and len(text) <= MAX_PARAM_VALUE:
                params[key] = text
        self.log_batch(run_id, params=params)
        self.set_workloads(run_id, gate=config.get("gate_workloads"), full=config.get("all_workloads"))
        with tempfile.TemporaryDirectory(prefix="kernelopt-cfg-") as tmp:
            Path(tmp, "config.json").write_text(json.dumps(config, indent=2, sort_keys=True, default=str))
            try:
                import yaml  # PyYAML ships with mlflow and omegaconf

                Path(tmp, "config.yaml").write_text(
                    yaml.safe_dump(json.loads(json.dumps(config, default=str)), sort_keys=True))
            except ImportError:  # pragma: no cover - yaml is always present with mlflow
                pass
            self.upload_dir(run_id, Path(tmp))
        return run_id

    def set_workloads(self, run_id: str, gate: list[str] | None = None, full: list[str] | None = None) -> None:
        """Record the gate / full workload uuid lists of a campaign (tags, chunked when long)."""
        tags: dict[str, str] = {}
        for key, value in ((names.GATE_WORKLOADS, gate), (names.ALL_WORKLOADS, full)):
            if value is not None:
                if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                    raise ValueError(f"{key}: expected a list of workload uuids, got {value!r:.80}")
                tags.update(encode_long_tag(key, json.dumps(list(value))))
        if tags:
            self.log_batch(run_id, tags=tags)

    def campaign_workloads(self, run_id: str) -> tuple[list[str], list[str]]:
        """``(gate, all)`` workload uuid lists recorded for a campaign (empty when not recorded)."""
        tags = self.campaign_run(run_id).data.tags
        gate = decode_long_tag(tags, names.GATE_WORKLOADS)
        full = decode_long_tag(tags, names.ALL_WORKLOADS)
        return (json.loads(gate) if gate else []), (json.loads(full) if full else [])

    def fail_unfinished(self, campaign_run_id: str) -> list[str]:
        """Mark the campaign's candidate runs that never finished (killed mid-log) as FAILED."""
        exp = self.experiment_of(campaign_run_id)
        runs = self.search([exp], f"tags.`{names.PARENT_RUN}` = {names.quote(campaign_run_id)} "
                                  "and attributes.status = 'RUNNING'")
        for run in runs:
            self.client.set_terminated(run.info.run_id, "FAILED")
        return [r.info.run_id for r in runs]

    def resume_campaign(self, run_id: str) -> list[str]:
        """Reopen a campaign run (status RUNNING) and fail its unfinished candidates; returns those ids.

        Raises:
            ValueError: the campaign ran on another card than this machine's (its figures and the new ones would
                be compared in one leaderboard and one promotion gate).
        """
        run = self.campaign_run(run_id)
        was, now = run.data.tags.get(names.HARDWARE), hardware_name()
        if was and card_of(was) != card_of(now):
            raise ValueError(f"resume: campaign run '{run_id}' measured on {was}; this machine is {now}: its "
                             "latencies and this machine's would meet in one leaderboard and one promotion gate "
                             "(resume it on that card, or start a new campaign here)")
        if run.info.status != "RUNNING":
            self.client.update_run(run_id, status="RUNNING")
        return self.fail_unfinished(run_id)

    def end_campaign(self, run_id: str, status: str = "FINISHED") -> None:
        """Terminate a campaign run with ``FINISHED`` | ``FAILED`` | ``KILLED``."""
        status = status.upper()
        if status not in _END_STATUSES:
            raise ValueError(f"end_campaign: status must be one of {_END_STATUSES}, got {status!r}")
        self.campaign_run(run_id)
        self.client.set_terminated(run_id, status)

    def list_campaigns(self, definition: str) -> list[str]:
        """Campaign run ids of a definition, oldest first."""
        exp = self.experiment_id(definition, create=False)
        if exp is None:
            return []
        runs = self.search([exp], f"tags.`{names.KIND}` = 'campaign'", order_by=["attributes.start_time ASC"])
        return [r.info.run_id for r in runs]

