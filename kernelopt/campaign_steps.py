"""The steps of one campaign: evaluate, reuse, generate, sweep/repeat, analyse, promote."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from kernelopt.analysis.campaign_analysis import analyse_operator, apply_profiles, band_probes
from kernelopt.analysis.roofline import cached_ceilings_path, load_ceilings, save_ceilings
from kernelopt.campaign_types import ANALYSIS_ARTIFACT, CampaignConfig, Progress, Store
from kernelopt.controller.specialise import DISPATCH
from kernelopt.data.definition import Definition
from kernelopt.data.records import (
    EVAL_WALL_S,
    CampaignState,
    CandidateRecord,
    Decision,
    EvalRequest,
    EvalResult,
)
from kernelopt.data.solution import Solution
from kernelopt.data.workload import Workload
from kernelopt.generators.base import GenerationContext, Generator, kernelopt_extra
from kernelopt.generators.dispatch import DispatchError, compose_planned
from kernelopt.generators.proposal_log import archive_failures, failure_metrics, take_log

#: Band profiling (after the baseline sweep) may use this share of the wall clock left ...
PROFILE_CLOCK_SHARE = 0.25
#: ... at most this many seconds per profiler child (torch.profiler or ncu on one workload) ...
PROFILE_TIMEOUT_S = 300.0
#: ... and is skipped when that share gives a child less than this (a fresh process builds, loads and runs once).
PROFILE_MIN_S = 20.0
#: Measuring a GPU's ceilings (once per device model, then cached) may take this many seconds at most, and no more
#: than PROFILE_CLOCK_SHARE of the wall clock left (skipped below PROFILE_MIN_S).
CEILINGS_TIMEOUT_S = 180.0


def child_budget_s(clock_left_s: float, cap_s: float, children: int = 1) -> float:
    """Seconds each of ``children`` analysis child processes (a profiler run, the ceilings measurement) may take:
    :data:`PROFILE_CLOCK_SHARE` of the wall clock left, split between them, at most ``cap_s``; the caller skips them
    below :data:`PROFILE_MIN_S`."""
    return min(cap_s, PROFILE_CLOCK_SHARE * clock_left_s / max(children, 1))


def _lanes(executor: Any) -> int:
    n = getattr(executor, "num_workers", None) or len(getattr(executor, "devices", None) or [None])
    return max(1, int(n))


def split_plan(jobs: int, workloads: int, lanes: int) -> tuple[int, int]:
    """How to spread ``jobs`` solutions x ``workloads`` over ``lanes`` parallel workers.

    Returns:
        ``(chunks, batch)``: each solution's workloads are split into at most ``chunks`` requests
        (more than one only when there are fewer solutions than lanes), and ``batch`` solutions are
        evaluated (then logged) together, so a batch fills the lanes and little is lost to a kill.
    """
    if jobs <= 0 or workloads <= 0:
        return 1, 1
    chunks = max(1, min(workloads, lanes // jobs))
    return chunks, max(1, lanes // chunks)


def _merge(parts: list[EvalResult]) -> EvalResult:
    """One result from the results of one solution on disjoint workload chunks."""
    first = parts[0]
    if len(parts) == 1:
        return first
    return first.model_copy(update={
        "results": [r for p in parts for r in p.results], "wall_s": sum(p.wall_s for p in parts),
        "build_log": "\n".join(p.build_log for p in parts if p.build_log),
    })


class _Loop:
    """State shared by the steps of one ``run_campaign`` call."""

    def __init__(self, cfg: CampaignConfig, store: Store, executor: Any, generator: Generator,
                 emit: Progress, definition: Definition, workloads: list[Workload]) -> None:
        self.cfg, self.store, self.executor, self.generator, self.emit = cfg, store, executor, generator, emit
        self.definition = definition
        self.by_uuid = {w.uuid: w for w in workloads}
        self.key = cfg.harness.key()
        self.run_id = ""
        self.evaluations = 0
        self.promoted: list[str] = []
        self.llm_logs: dict[str, dict[str, Any]] = {}  # solution hash -> log_candidate kwargs (LLM artefacts)
        self.device: str | None = None
        self.analysis: dict[str, Any] | None = None
        self.workloads = workloads

    def evaluate(self, stage: str, jobs: list[tuple[Solution, dict[str, Any]]], uuids: list[str],
                 decision: Decision) -> None:
        """Evaluate ``(solution, params)`` jobs on ``uuids`` and log each, a lane-sized batch at a time."""
        wls = [self.by_uuid[u] for u in uuids]
        per, batch = split_plan(len(jobs), len(wls), _lanes(self.executor))
        size = -(-len(wls) // per)
        chunks = [wls[i:i + size] for i in range(0, len(wls), size)]
        for start in range(0, len(jobs), batch):
            group = jobs[start:start + batch]
            self.emit("evaluating", stage=stage, solutions=[s.name for s, _ in group], workloads=len(wls))
            reqs = [EvalRequest(definition=self.definition, solution=s, workloads=c, settings=self.cfg.harness)
                    for s, _ in group for c in chunks]
            started = time.monotonic()
            results = self.executor.evaluate_many(reqs)
            wall = (time.monotonic() - started) / len(group)  # the batch's wall time, per candidate
            for i, (sol, params) in enumerate(group):
                result = _merge(results[i * len(chunks):(i + 1) * len(chunks)])
                more = dict(self.llm_logs.pop(sol.hash(), {})) if stage == "gate" else {}
                more["metrics"] = {**more.get("metrics", {}), EVAL_WALL_S: wall}
                run = self.store.log_candidate(self.run_id, sol, result, stage=stage, params=params,
                                               decision=decision, **more)
                self.device = result.environment.get("hardware") or self.device
                self.evaluations += 1
                self.emit("evaluated", stage=stage, solution=sol.name, run_id=run, result=result)

    def reuse(self, solution_hash: str, stage: str) -> tuple[str, str] | None:
        """Adopt a FINISHED evaluation of the same solution, settings and stage from an earlier campaign of this
        definition on the same card (a shared store may hold other machines' runs) instead of evaluating it again:
        ``(adopted run id, source run id)``, or None when there is none."""
        if not self.cfg.reuse_across_campaigns:
            return None
        other = self.store.find_evaluated(self.run_id, solution_hash, self.key, stage, across_campaigns=True)
        if other is None:
            return None
        return self.store.adopt_candidate(self.run_id, other), other

    def already_evaluated(self, sol: Solution, stage: str) -> str:
        """Why ``sol`` needs no evaluation at ``stage`` (one progress event said), ``""`` when it does: this
        campaign has it (``"skipped"``), or an earlier campaign's run was adopted into it (``"reused"``)."""
        h = sol.hash()
        existing = self.store.find_evaluated(self.run_id, h, self.key, stage)
        if existing:
            self.emit("skipped", stage=stage, solution=sol.name, existing=existing)
            return "skipped"
        reused = self.reuse(h, stage)
        if reused:
            self.emit("reused", stage=stage, solution=sol.name, run_id=reused[0], source=reused[1])
            return "reused"
        return ""

    def compose(self, decision: Decision) -> list[Solution]:
        """The dispatch candidate of a ``dispatch`` decision (platform code, not the generator): the
        specialists' solutions from the store behind a dispatch on the band axis."""
        specialists = [self.store.download_solution(rid) for rid in decision.candidate_run_ids]
        try:
            sol = compose_planned(self.definition, decision, specialists)
        except DispatchError as exc:
            self.emit("proposal_failed", reason=f"dispatch: {exc}")
            return []
        return [sol]

    def generate(self, state: CampaignState, decision: Decision) -> None:
        """Ask the generator for candidates (or compose a dispatch) and gate the new ones."""
        if decision.direction == DISPATCH:
            proposals = self.compose(decision)
            self.emit("proposed", count=len(proposals), names=[s.name for s in proposals])
            self.gate_new(state, decision, proposals, generator="dispatch")
            return
        parent = parent_params = None
        if decision.parent_run_id:
            parent = self.store.download_solution(decision.parent_run_id)
            rec = _record(state, decision.parent_run_id)
            parent_params = kernelopt_extra(parent).get("params") or (rec.params.get("seed_params") if rec else None)
        ctx = GenerationContext(
            definition=self.definition, operator=self.cfg.operator, parent=parent, parent_params=parent_params,
            direction=None if decision.direction == "baseline" else decision.direction, count=decision.count,
            mode=self.cfg.mode, history=state.candidates, skills=self.cfg.skills, seed=self.cfg.seed,
            decision=decision)
        proposals = self.generator.propose(ctx)
        # the user's campaign.include first: a round's size never cuts what was asked for by name (call HB on the
        # H200: 16 MoE seeds before the included retained kernel, a 12-candidate round, the kernel never gated)
        included = list(self.cfg.include) if decision.direction == "baseline" else []
        self.emit("proposed", count=len(proposals) + len(included), names=[s.name for s in included + proposals])
        log = take_log(self.generator)
        for h, arts in log.artifacts.items():
            self.llm_logs[h] = {"artifacts": arts, "metrics": log.metrics.get(h) or {}}
        for failure in log.failures:
            self.emit("proposal_failed", reason=failure.reason)
        archive_failures(self.store, self.run_id, log.failures)
        failed_usage = failure_metrics(log.failures)
        if failed_usage:  # one step per decision: the sum over steps survives a resume (compare_campaigns reads it)
            self.store.log_batch(self.run_id, metrics=failed_usage, step=len(state.decisions))
        self.gate_new(state, decision, included + proposals, generator=self.generator.name,
                      included={s.hash() for s in included})

    def gate_new(self, state: CampaignState, decision: Decision, proposals: list[Solution], generator: str,
                 included: Collection[str] = ()) -> None:
        """Gate the proposals not evaluated yet (here or, adopted, in an earlier campaign); those whose hash is
        in ``included`` (``campaign.include``) are recorded with generator ``include``."""
        jobs: list[tuple[Solution, dict[str, Any]]] = []
        seen: set[str] = set()
        adopted = 0  # earlier campaigns' runs adopted into this round: they count towards its size (the budget)
        for i, sol in enumerate(proposals):
            if len(jobs) + adopted >= decision.count:  # the round's size: the rest are said, not silently dropped
                self.emit("over_count", stage="gate", count=decision.count,
                          solutions=[s.name for s in proposals[i:]])
                break
            if sol.definition != self.definition.name:
                raise ValueError(f"generator '{generator}' proposed '{sol.name}' for definition "
                                 f"'{sol.definition}', not '{self.definition.name}'")
            h = sol.hash()
            if h in seen:
                self.emit("duplicate", stage="gate", solution=sol.name)
                continue
            seen.add(h)
            done = self.already_evaluated(sol, "gate")
            if done:
                adopted += done == "reused"
                continue
            jobs.append((sol, {
                "settings_key": self.key, "generator": "include" if h in included else generator,
                "mode": self.cfg.mode, "parent_run_id": decision.parent_run_id, "direction": decision.direction,
                "directions": kernelopt_extra(sol).get("directions"), "campaign_seed": self.cfg.seed,
                "direction_kernels": kernelopt_extra(sol).get("direction_kernels") or None,
                "model": kernelopt_extra(sol).get("model"),
            }))
        self.evaluate("gate", jobs, list(decision.workloads) or state.gate_workloads, decision)

    def full_runs(self, state: CampaignState, decision: Decision) -> None:
        """Sweep or repeat the decision's candidates on every campaign workload."""
        stage = decision.action
        jobs = []
        for rid in decision.candidate_run_ids:
            rec = _record(state, rid)
            sol = self.store.download_solution(rid)
            h = sol.hash()
            if stage == "sweep" and self.already_evaluated(sol, "sweep"):
                continue
            full = [c for c in state.candidates if c.solution_hash == h and c.stage != "gate"]
            src = rec.params if rec else {}
            params = {
                "settings_key": self.key, "generator": src.get("generator"), "mode": self.cfg.mode,
                "parent_run_id": rec.parent_run_id if rec else None, "direction": rec.direction if rec else None,
                "directions": src.get("directions"), "campaign_seed": self.cfg.seed, "source_run_id": rid,
                "direction_kernels": src.get("direction_kernels"),
            }
            if stage == "repeat":
                params["repeat_index"] = len(full)
            jobs.append((sol, params))
        self.evaluate(stage, jobs, state.all_workloads, decision)

    def with_analysis(self, state: CampaignState, operator_dir: Path) -> CampaignState:
        """``state`` with the campaign's evidence bundle once the baseline sweep exists (computed and
        logged as ``bands.json`` once, re-read from the store on resume)."""
        if not self.cfg.evidence:
            return state
        if self.analysis is None and hasattr(self.store, "read_artifact_json"):
            self.analysis = self.store.read_artifact_json(self.run_id, ANALYSIS_ARTIFACT)
        if self.analysis is None:
            sweeps = sorted((c for c in state.candidates if c.stage == "sweep" and c.all_passed and c.per_workload_ms),
                            key=lambda c: c.start_time)
            if not sweeps:
                return state
            chosen = [w for w in self.workloads if w.uuid in set(state.all_workloads)] or self.workloads
            self.ensure_ceilings(self.cfg.budget.wall_clock_s - state.elapsed_s)
            self.analysis = analyse_operator(self.definition, chosen, operator_dir, sweeps[0].per_workload_ms,
                                             self.device)
            self.analysis["baseline_run_id"] = sweeps[0].run_id
            if self.cfg.profile_bands and self.analysis.get("ceilings"):
                self.analysis = self.profile_bands(self.analysis, sweeps[0].run_id,
                                                   self.cfg.budget.wall_clock_s - state.elapsed_s)
            _log_json(self.store, self.run_id, ANALYSIS_ARTIFACT, self.analysis)
            self.emit("analysis", bands=[b["name"] for b in self.analysis["bands"]["bands"]],
                      device=self.device)
        return state.model_copy(update={"analysis": self.analysis})

    def ensure_ceilings(self, clock_left_s: float) -> None:
        """On a GPU whose model has no ceilings (shipped or cached: :func:`~kernelopt.analysis.roofline.load_ceilings`),
        have the executor measure them once (``measure_ceilings``: a child process on its first GPU lane's device, or
        a Ray actor's) and keep them in the ceilings cache, so the analysis gets roofline bounds, bottleneck classes
        and band profiles there too. Off with ``measure_ceilings``; an executor without GPU lanes measures nothing; a
        failure is emitted and the campaign goes on without ceilings, as before."""
        measure = getattr(self.executor, "measure_ceilings", None)
        if (not self.cfg.measure_ceilings or not self.device or not callable(measure)
                or not getattr(self.executor, "has_gpu", False) or load_ceilings(self.device) is not None):
            return
        timeout = child_budget_s(clock_left_s, CEILINGS_TIMEOUT_S)
        path = cached_ceilings_path(self.device)
        if timeout < PROFILE_MIN_S:
            self.emit("ceilings_failed", device=self.device, reason=(
                f"no ceilings for {self.device} and {max(clock_left_s, 0.0):.0f} s of the wall clock left: not "
                f"measured (python -m kernelopt.harness.ceilings --cache measures them once, into {path})"))
            return
        self.emit("measuring_ceilings", device=self.device, path=str(path))
        started = time.monotonic()
        data, why = measure(timeout) or (None, "the executor has no GPU lane")
        if data is not None:
            try:
                path = save_ceilings(data)
            except (OSError, ValueError, KeyError) as exc:
                data, why = None, f"cannot keep the measured ceilings: {exc}"
        if data is not None and load_ceilings(self.device) is not None:
            self.emit("ceilings_measured", device=self.device, path=str(path), seconds=time.monotonic() - started)
        else:
            self.emit("ceilings_failed", device=self.device, reason=why or (
                f"measured {data and data.get('device')!r}, not {self.device!r}: kept in {path}"))

    def profile_bands(self, analysis: dict[str, Any], baseline_run: str, clock_left_s: float) -> dict[str, Any]:
        """``analysis`` with the bands' classes from profiles of the baseline on one workload per band
        (logged as the baseline run's ``profile.json``); on any failure the roofline classes stay and
        the reason is noted and emitted. The profiles get :data:`PROFILE_CLOCK_SHARE` of the wall clock
        left (``clock_left_s``), split over their profiler children; too little for one child
        (:data:`PROFILE_MIN_S`) skips them."""
        probes = band_probes(analysis)
        children = 2 * len(set(probes.values()))  # torch.profiler and ncu per probed workload
        per_child = child_budget_s(clock_left_s, PROFILE_TIMEOUT_S, children)
        if per_child < PROFILE_MIN_S:
            why = (f"band profiling skipped: {max(clock_left_s, 0.0):.0f} s of the wall clock left, "
                   f"{PROFILE_CLOCK_SHARE:g} of it over {children} profiler runs is {per_child:.1f} s each "
                   f"(< {PROFILE_MIN_S:g} s)")
            self.emit("profile_skipped", reason=why)
            return {**analysis, "notes": [*analysis.get("notes", []), why]}
        try:
            sol = self.store.download_solution(baseline_run)
            s = self.cfg.harness.model_copy(update={"trials": 1, "warmup": min(self.cfg.harness.warmup, 1),
                                                    "iterations": min(self.cfg.harness.iterations, 3)})
            req = EvalRequest(definition=self.definition, solution=sol, settings=s, profile=True,
                              profile_timeout_s=per_child,
                              workloads=[self.by_uuid[u] for u in dict.fromkeys(probes.values())])
            (res,) = self.executor.evaluate_many([req])
            profiles = (res.profile or {}).get("workloads") or {}
            _log_json(self.store, baseline_run, "profile.json", {"probes": probes, "workloads": profiles})
            out = apply_profiles(analysis, probes, profiles)
        except Exception as exc:  # profiling is evidence, never a reason to stop the campaign
            self.emit("profile_failed", reason=f"{type(exc).__name__}: {exc}")
            return {**analysis, "notes": [*analysis.get("notes", []), f"band profiling failed: {exc}"]}
        self.emit("profiled", classes={b: v["class"] for b, v in out["bottlenecks"].items()
                                       if v.get("source") == "profile"})
        return out

    def promote(self, decision: Decision) -> None:
        """Register the finalist's sweep run and move the ``champion`` alias to it."""
        run = decision.candidate_run_ids[0]
        tags = {"campaign": self.run_id, "full_runs": ",".join(decision.candidate_run_ids),
                "reason": decision.reason[:500]}
        for ev in decision.evidence:
            if ev.kind == "latency" and ev.value is not None:
                tags["mean_latency_ms"] = str(ev.value)
            elif ev.kind == "p95" and ev.value is not None:
                tags["p95_latency_ms"] = str(ev.value)
            elif ev.kind == "noise_floor":
                tags["noise_floor"] = str(ev.value)
            elif ev.kind == "provisional":
                tags["provisional"] = f"{float(ev.value):g} full run(s) < {ev.detail.get('required_repeats')} required"
        version = self.store.register(self.definition.name, run, tags)
        self.store.set_champion(self.definition.name, version)
        self.promoted.append(run)
        self.emit("promoted", run_id=run, version=version, reason=decision.reason)


def _log_json(store: Store, run_id: str, name: str, data: dict[str, Any]) -> None:
    """Log ``data`` as the JSON artefact ``name`` of a run (stores without artefacts are skipped)."""
    upload = getattr(store, "upload_file", None)
    if upload is None:
        return
    with tempfile.TemporaryDirectory(prefix="kernelopt-art-") as tmp:
        path = Path(tmp) / name
        path.write_text(json.dumps(data, indent=1, sort_keys=True, default=str))
        upload(run_id, path)


def _record(state: CampaignState, run_id: str) -> CandidateRecord | None:
    return next((c for c in state.candidates if c.run_id == run_id), None)


