"""Candidate (nested) runs: one per evaluation of one solution at one stage; dedup look-ups."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernelopt.data import Decision, Definition, EvalResult, Solution, Workload
from kernelopt.tracking import names
from kernelopt.tracking.campaigns import card_of
from kernelopt.tracking.base import MAX_PARAM_VALUE, StoreBase, encode_long_tag, stringify
from kernelopt.tracking.summary import request_key, result_metrics, seed_info, settings_hash, write_artifacts

_COPY_SKIP_TAGS = (names.CAMPAIGN, names.LOGGED_AT, names.PARENT_RUN, names.ADOPTED_FROM)


class CandidatesMixin(StoreBase):
    """Log candidate evaluations and find ones already made."""

    def log_candidate(self, campaign_run_id: str, solution: Solution, result: EvalResult, *, stage: str,
                      params: dict[str, Any], decision: Decision | None = None,
                      definition: Definition | None = None, workloads: Sequence[Workload] | None = None,
                      tags: dict[str, str] | None = None,
                      artifacts: dict[str, str | bytes] | None = None,
                      metrics: dict[str, float] | None = None) -> str:
        """Record one evaluation as a run nested under the campaign; returns its run id.

        ``params`` must hold ``settings_key`` (``HarnessSettings.key()``); it usually also holds
        ``generator``, ``model``, ``direction``, ``parent_run_id`` (the parent candidate), ``band`` and
        ``baseline`` (a baseline name, which also sets the tag ``kernelopt.baseline``). Everything
        :meth:`load_state` needs goes to params/metrics/tags; the solution, traces, full result, logs,
        decision and ``artifacts`` (relative path -> content) go to artefacts. The run is set FINISHED
        only after every artefact is written, so an interrupted log leaves a run ``load_state`` ignores.

        Args:
            definition: used for the trace lines' definition name (else ``result.definition``).
            workloads: full workload records for the traces (else rebuilt from the result's axes).
            tags: extra run tags (keys without a dot get the ``kernelopt.`` prefix).
            metrics: extra run metrics (e.g. ``llm_input_tokens``, ``llm_cost_usd``); they may not
                replace a metric computed from the result.
        """
        if stage not in names.STAGES:
            raise ValueError(f"log_candidate: stage must be one of {names.STAGES}, got {stage!r}")
        if not isinstance(params, dict):
            raise TypeError(f"log_candidate: params must be a dict, got {type(params).__name__}")
        settings_key = params.get("settings_key")
        if not settings_key:
            raise ValueError("log_candidate: params['settings_key'] (HarnessSettings.key()) is required")
        if not isinstance(settings_key, str):
            raise TypeError(f"log_candidate: params['settings_key'] must be a str, got {type(settings_key).__name__}")
        if result.solution_hash != solution.hash():
            raise ValueError(f"log_candidate: result.solution_hash {result.solution_hash[:12]} is not the hash "
                             f"of solution {solution.name!r} ({solution.hash()[:12]})")
        campaign = self.campaign_run(campaign_run_id)
        exp_id = campaign.info.experiment_id
        sol_hash = solution.hash()
        seed, seed_params = seed_info(solution)
        record_params = dict(params)
        if seed is not None:
            record_params.setdefault("seed", seed)
            record_params.setdefault("seed_params", seed_params)
        run_params = self._candidate_params(solution, result, stage, params, seed, seed_params)
        run_metrics = result_metrics(result)  # validates workload uuids before anything is written
        clash = sorted(set(metrics or {}) & set(run_metrics))
        if clash:
            raise ValueError(f"log_candidate: metrics {clash} clash with the result's metrics")
        run_metrics.update({k: float(v) for k, v in (metrics or {}).items()})
        uuids = [r.uuid for r in result.results]
        run_tags = {
            names.PARENT_RUN: campaign_run_id,
            names.KIND: "candidate",
            names.CAMPAIGN: campaign_run_id,
            names.DEFINITION: solution.definition,
            names.SOLUTION_HASH: sol_hash,
            names.STAGE: stage,
            names.SETTINGS_KEY: settings_key,
            names.SETTINGS_HASH: settings_hash(settings_key),
            names.STATUS: names.ALL_PASSED if result.all_passed else names.FAILED,
            names.REQUEST_KEY: request_key(sol_hash, settings_key, stage, uuids),
            names.LOGGED_AT: f"{time.time():.6f}",
        }
        if result.environment.get("hardware"):
            run_tags[names.MEASURED_ON] = str(result.environment["hardware"])
        if params.get("baseline"):
            run_tags[names.BASELINE] = str(params["baseline"])
        if not result.all_passed and result.failure_line():
            run_tags[names.FAILURE] = result.failure_line()
        run_tags.update({(k if "." in k else f"kernelopt.{k}"): stringify(v) for k, v in (tags or {}).items()})
        run_tags.update(encode_long_tag(names.PARAMS_JSON, json.dumps(record_params, sort_keys=True, default=str)))
        run = self.client.create_run(exp_id, run_name=f"{solution.name}:{stage}", tags=run_tags)
        run_id = run.info.run_id
        self._run_experiment[run_id] = exp_id
        try:
            self.log_batch(run_id, params=run_params, metrics=run_metrics)
            with tempfile.TemporaryDirectory(prefix="kernelopt-run-") as tmp:
                write_artifacts(Path(tmp), solution, result, definition=definition, workloads=workloads,
                                decision_json=decision.model_dump_json(indent=2) if decision else None,
                                extra=artifacts)
                self.upload_dir(run_id, Path(tmp))
        except BaseException:
            self.client.set_terminated(run_id, "FAILED")
            raise
        self.client.set_terminated(run_id, "FINISHED")
        return run_id

    @staticmethod
    def _candidate_params(solution: Solution, result: EvalResult, stage: str, params: dict[str, Any],
                          seed: str | None, seed_params: dict[str, Any]) -> dict[str, str]:
        fixed: dict[str, Any] = {
            "solution_hash": solution.hash(), "name": solution.name, "definition": solution.definition,
            "language": solution.spec.language.value, "author": solution.author, "stage": stage,
            "harness_timer": result.timer,
        }
        if seed is not None:
            fixed["seed"] = seed
            fixed.update({f"seed.{k}": v for k, v in seed_params.items()})
        out: dict[str, str] = {}
        for key, value in {**params, **fixed}.items():
            if key in params and key in fixed and stringify(params[key]) != stringify(fixed[key]):
                raise ValueError(f"log_candidate: params[{key!r}]={params[key]!r} contradicts the "
                                 f"solution/result ({fixed[key]!r})")
            if value is None:
                continue
            if not names.valid_key(key):
                raise ValueError(f"log_candidate: params key {key!r} is not a valid MLflow param name")
            text = stringify(value)
            out[key] = text if len(text) <= MAX_PARAM_VALUE else text[:MAX_PARAM_VALUE - 3] + "..."
        return out

    def find_evaluated(self, campaign_run_id: str, solution_hash: str, settings_key: str, stage: str, *,
                       workloads: Sequence[str] | None = None, across_campaigns: bool = False) -> str | None:
        """Run id of a FINISHED evaluation of the same solution under the same harness settings and stage.

        Args:
            workloads: when given, the workload uuid set must match too (the request key).
            across_campaigns: also look at other campaigns of the same definition (runs of this campaign
                are preferred) that ran on the same card as this one (their ``kernelopt.hardware`` tags; a shared
                store may hold other machines' campaigns, whose latencies are not this campaign's); use
                :meth:`adopt_candidate` to make such a run part of this campaign.
        """
        exp = self.experiment_of(campaign_run_id)
        q = names.quote
        flt = [f"tags.`{names.KIND}` = 'candidate'", "attributes.status = 'FINISHED'",
               f"tags.`{names.SOLUTION_HASH}` = {q(solution_hash)}",
               f"tags.`{names.SETTINGS_HASH}` = {q(settings_hash(settings_key))}",
               f"tags.`{names.STAGE}` = {q(stage)}"]
        if workloads is not None:
            flt.append(f"tags.`{names.REQUEST_KEY}` = {q(request_key(solution_hash, settings_key, stage, workloads))}")
        if not across_campaigns:
            flt.append(f"tags.`{names.CAMPAIGN}` = {q(campaign_run_id)}")
        runs = self.search([exp], " and ".join(flt), order_by=["attributes.start_time DESC"])
        runs = [r for r in runs if r.data.tags.get(names.SETTINGS_KEY) == settings_key]
        if not runs:
            return None
        own = [r for r in runs if r.data.tags.get(names.CAMPAIGN) == campaign_run_id]
        if own:
            return own[0].info.run_id
        cards: dict[str, str | None] = {}

        def card(campaign: str | None) -> str | None:
            if campaign not in cards:
                try:
                    tag = self.client.get_run(campaign).data.tags.get(names.HARDWARE) if campaign else None
                except Exception:  # noqa: BLE001 - a deleted campaign: its runs are not reused
                    tag = None
                cards[campaign] = card_of(tag) if tag else None
            return cards[campaign]

        mine = card(campaign_run_id)
        if mine is None:  # a campaign without a hardware tag adopts nothing from others
            return None
        same = [r for r in runs if card(r.data.tags.get(names.CAMPAIGN)) == mine]
        return same[0].info.run_id if same else None

    def adopt_candidate(self, campaign_run_id: str, run_id: str) -> str:
        """Copy a finished candidate run of another campaign into this one (params, metrics, tags,
        artefacts; tag ``kernelopt.adopted_from``); returns the new run id (``run_id`` if already ours)."""
        src = self.client.get_run(run_id)
        if src.data.tags.get(names.KIND) != "candidate" or src.info.status != "FINISHED":
            raise ValueError(f"adopt_candidate: run {run_id!r} is not a FINISHED candidate run")
        if src.data.tags.get(names.CAMPAIGN) == campaign_run_id:
            return run_id
        exp_id = self.campaign_run(campaign_run_id).info.experiment_id
        tags = {k: v for k, v in src.data.tags.items()
                if k not in _COPY_SKIP_TAGS and (not k.startswith("mlflow.") or k == names.RUN_NAME)}
        tags.update({names.PARENT_RUN: campaign_run_id, names.CAMPAIGN: campaign_run_id,
                     names.ADOPTED_FROM: run_id, names.LOGGED_AT: f"{time.time():.6f}"})
        run = self.client.create_run(exp_id, tags=tags)
        new_id = run.info.run_id
        self._run_experiment[new_id] = exp_id
        try:
            self.log_batch(new_id, params=dict(src.data.params), metrics=dict(src.data.metrics))
            with tempfile.TemporaryDirectory(prefix="kernelopt-adopt-") as tmp:
                local = self.client.download_artifacts(run_id, "", tmp)
                self.upload_dir(new_id, Path(local))
        except BaseException:
            self.client.set_terminated(new_id, "FAILED")
            raise
        self.client.set_terminated(new_id, "FINISHED")
        return new_id
