"""Rebuild a campaign's :class:`CampaignState` from the tracking store (``search_runs`` + tags)."""

from __future__ import annotations

import json
import math
import time

from mlflow.entities import Run

from kernelopt.data import CampaignState, CandidateRecord
from kernelopt.data.records import EVAL_WALL_S
from kernelopt.tracking import names
from kernelopt.tracking.base import decode_long_tag
from kernelopt.tracking.decisions import DecisionsMixin
from kernelopt.tracking.registry import RegistryMixin


def record_from_run(run: Run) -> CandidateRecord:
    """The controller's view of one candidate run (params, metrics and tags only; no artefacts)."""
    tags, metrics = run.data.tags, run.data.metrics
    raw = decode_long_tag(tags, names.PARAMS_JSON)
    params = json.loads(raw) if raw else {}
    stage = tags.get(names.STAGE)
    if stage not in names.STAGES:
        raise ValueError(f"candidate run {run.info.run_id}: tag {names.STAGE}={stage!r} is not one of {names.STAGES}")
    return CandidateRecord(
        run_id=run.info.run_id,
        name=run.data.params.get("name") or tags.get(names.RUN_NAME, ""),
        solution_hash=tags.get(names.SOLUTION_HASH, ""),
        stage=stage,
        parent_run_id=params.get("parent_run_id"),
        direction=params.get("direction"),
        params=params,
        pass_count=int(metrics.get(names.PASS_COUNT, 0)),
        workload_count=int(metrics.get(names.WORKLOAD_COUNT, 0)),
        mean_latency_ms=metrics.get(names.MEAN_MS),
        p95_latency_ms=metrics.get(names.P95_MS),
        per_workload_ms=names.per_workload(metrics),
        status=tags.get(names.STATUS, "UNKNOWN"),
        start_time=run.info.start_time / 1000.0,
        failure=tags.get(names.FAILURE),
        eval_wall_s=metrics.get(EVAL_WALL_S),
        workload_wall_s=names.per_workload(metrics, names.WORKLOAD_WALL_PREFIX),
    )


def _order(run: Run) -> tuple[float, int]:
    try:
        logged = float(run.data.tags.get(names.LOGGED_AT, "nan"))
    except ValueError:
        logged = float("nan")
    if math.isnan(logged):  # no tag: fall back on the start time
        logged = run.info.start_time / 1000.0
    return logged, run.info.start_time


class StateMixin(DecisionsMixin, RegistryMixin):
    """Queries that rebuild what the controller needs (decisions and champion come from the parents)."""

    def candidate_runs(self, campaign_run_id: str) -> list[Run]:
        """FINISHED candidate runs of a campaign, in the order they were logged."""
        exp = self.experiment_of(campaign_run_id)
        runs = self.search([exp], f"tags.`{names.PARENT_RUN}` = {names.quote(campaign_run_id)} "
                                  f"and tags.`{names.KIND}` = 'candidate' and attributes.status = 'FINISHED'")
        return sorted(runs, key=_order)

    def load_candidates(self, campaign_run_id: str) -> list[CandidateRecord]:
        """:class:`CandidateRecord` of every FINISHED candidate run of a campaign, oldest first."""
        return [record_from_run(r) for r in self.candidate_runs(campaign_run_id)]

    def load_state(self, campaign_run_id: str) -> CampaignState:
        """Everything the controller may know about a campaign, from the tracking store alone.

        Candidates come from ``search_runs`` (FINISHED nested runs only: a run killed mid-log is
        ignored), decisions from ``decisions.jsonl``, the champion from the registry alias, the workload
        lists from the campaign's tags; ``elapsed_s`` is wall time since the campaign run started.
        """
        camp = self.campaign_run(campaign_run_id)
        tags = camp.data.tags
        definition = tags.get(names.DEFINITION)
        if not definition:
            raise ValueError(f"campaign run {campaign_run_id}: tag {names.DEFINITION} missing")
        gate = decode_long_tag(tags, names.GATE_WORKLOADS)
        full = decode_long_tag(tags, names.ALL_WORKLOADS)
        return CampaignState(
            campaign_run_id=campaign_run_id,
            definition=definition,
            candidates=self.load_candidates(campaign_run_id),
            decisions=self.load_decisions(campaign_run_id),
            champion=self.get_champion(definition),
            elapsed_s=max(0.0, time.time() - camp.info.start_time / 1000.0),
            gate_workloads=json.loads(gate) if gate else [],
            all_workloads=json.loads(full) if full else [],
        )
