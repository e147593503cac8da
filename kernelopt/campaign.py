"""The campaign loop: reload state -> decide -> generate / evaluate / promote -> log -> repeat.

``run_campaign`` is a plain function (the CLI builds the store, executor and generator). Every step
is written to the tracking store before the next decision is made, and every decision is taken from
state reloaded from the store, so a campaign killed at any point resumes (``resume=<run id>``)
without redoing or losing finished evaluations.
"""

from __future__ import annotations

from typing import Any

from kernelopt.campaign_steps import _Loop, split_plan
from kernelopt.campaign_types import ANALYSIS_ARTIFACT, CampaignConfig, CampaignOutcome, Progress, Store
from kernelopt.controller import decide
from kernelopt.controller.workloads import representative, select_workloads
from kernelopt.data.records import CampaignState, Decision
from kernelopt.data.workload import Workload
from kernelopt.generators.base import Generator
from kernelopt.operators import load_operator

__all__ = ["ANALYSIS_ARTIFACT", "CampaignConfig", "CampaignOutcome", "Progress", "Store", "_Loop", "run_campaign",
           "split_plan"]

def _controller(cfg: CampaignConfig) -> str:
    """Controller version recorded with the campaign."""
    return "v2-lite" if cfg.evidence else "v1"


def _open(cfg: CampaignConfig, store: Store, generator: Generator, workloads: list[Workload]) -> tuple[str, bool]:
    """Start a new campaign run or reopen ``cfg.resume``; returns ``(run id, resumed)``.

    A resumed campaign keeps the gate and workload lists recorded when it started.
    """
    if cfg.resume:
        if not store.campaign_exists(cfg.resume):
            where = getattr(store, "tracking_uri", None)
            raise ValueError(f"resume: campaign run '{cfg.resume}' is not a campaign run of the tracking store"
                             + (f" {where}" if where else "") + " (tracking.uri= names another store)")
        recorded = store.load_state(cfg.resume).definition
        if recorded != cfg.operator:
            raise ValueError(f"resume: campaign run '{cfg.resume}' is for '{recorded}', not '{cfg.operator}'")
        reopen = getattr(store, "resume_campaign", None)
        if reopen is not None:
            reopen(cfg.resume)
        return cfg.resume, True
    uuids = [w.uuid for w in workloads]
    if cfg.gate_workloads:
        unknown = sorted(set(cfg.gate_workloads) - set(uuids))
        if unknown:
            raise ValueError(f"gate_workloads: {unknown} are not among the campaign's workloads")
        gate = list(cfg.gate_workloads)
    else:
        gate = [w.uuid for w in representative(workloads, cfg.rules.gate_size)]
    config = {
        **cfg.record, "operator": cfg.operator, "mode": cfg.mode, "seed": cfg.seed,
        "generator": {"name": generator.name}, "controller": _controller(cfg), "budget": cfg.budget.model_dump(),
        "rules": cfg.rules.model_dump(), "harness": cfg.harness.model_dump(),
        "gate_workloads": gate, "all_workloads": uuids,
    }
    tags = {"agent_mode": cfg.mode, "generator": generator.name, "controller": _controller(cfg), **cfg.tags}
    if cfg.name:
        tags["mlflow.runName"] = cfg.name
    return store.start_campaign(cfg.operator, config, tags), False


def _finish_interrupted_round(loop: _Loop, state: CampaignState, emit: Progress) -> None:
    """On resume: when the last logged decision is a generation round and fewer candidates of it
    (same parent and direction) were gated than it asked for — the process died between its gates —
    generate the difference once (the offline generator is seeded and skips what the history holds,
    so it proposes what the kill cut off); the round is not logged or counted twice."""
    last = state.decisions[-1] if state.decisions else None
    if last is None or last.action != "generate":
        return
    done = sum(1 for c in state.candidates if c.stage == "gate" and c.direction == last.direction
               and c.parent_run_id == last.parent_run_id)
    if last.direction != "baseline" and done < last.count:
        emit("resuming_round", decision=last, gated=done)
        loop.generate(state, last.model_copy(update={"count": last.count - done}))
    elif last.direction == "baseline":  # every seed once: already-gated ones are skipped
        emit("resuming_round", decision=last, gated=done)
        loop.generate(state, last)


def _unless_unusable(decision: Decision, generator: Generator) -> Decision:
    """``decision``, or a stop when it asks for new candidates from a generator the service refused (401, 403, an
    exhausted quota: every later request fails the same way); sweeps, repeats and promotions of candidates already
    gated go on. It ran empty rounds, printing the refusal each time, until the round budget or patience ended it."""
    unusable = getattr(generator, "unusable", None)
    if decision.action != "generate" or not unusable:
        return decision
    return Decision(action="stop", reason=f"{unusable}: no new candidate can come from it (fix the key or account, "
                                          "then resume)", evidence=decision.evidence)


def run_campaign(cfg: CampaignConfig, *, store: Store, executor: Any, generator: Generator,
                 progress: Progress | None = None) -> CampaignOutcome:
    """Run (or resume) one optimisation campaign until the controller says stop.

    Args:
        cfg: The campaign configuration.
        store: Tracking store (``kernelopt.tracking.TrackingStore``).
        executor: Harness executor (``kernelopt.executor.make_executor(...)``).
        generator: Candidate generator.
        progress: Optional callback ``progress(event, **info)``; events: ``campaign_started``,
            ``decision``, ``proposed``, ``skipped`` (evaluated in this campaign already), ``reused`` (an
            earlier campaign's run adopted), ``duplicate`` (proposed twice in one round), ``over_count``
            (proposals beyond the round's count, not gated), ``evaluating``,
            ``evaluated``, ``promoted``, ``analysis``, ``profiled`` / ``profile_skipped`` (the clock cannot
            afford the band profiles) / ``profile_failed``, ``proposal_failed``, ``campaign_finished``.

    Returns:
        The outcome: champion, promotions, counts and the stop reason.

    Raises:
        ValueError: bad configuration (unknown operator/workloads, unknown resume id...), before
            anything is written for a new campaign.
    """
    emit: Progress = progress or (lambda event, **info: None)
    op = load_operator(cfg.operator)
    workloads = select_workloads(op.workloads, cfg.workloads, cfg.workload_limit)
    if not workloads:
        raise ValueError(f"operator '{cfg.operator}' has no workloads to run")
    wrong = [f"{s.name} ({s.definition})" for s in cfg.include if s.definition != cfg.operator]
    if wrong:
        raise ValueError(f"campaign.include: {', '.join(wrong)}: not solutions of '{cfg.operator}'")
    run_id, resumed = _open(cfg, store, generator, workloads)
    loop = _Loop(cfg, store, executor, generator, emit, op.definition, op.workloads)
    loop.run_id = run_id
    emit("campaign_started", run_id=run_id, resumed=resumed, operator=cfg.operator, workloads=len(workloads))
    b = cfg.budget
    max_steps = 2 * (b.max_rounds + 4 + b.max_candidates * (cfg.rules.repeats + 2)) + 10
    last: tuple | None = None
    decision = None
    def current() -> CampaignState:
        state = store.load_state(run_id)
        if not state.gate_workloads or not state.all_workloads:
            gate = [w.uuid for w in representative(workloads, cfg.rules.gate_size)]
            state = state.model_copy(update={"gate_workloads": state.gate_workloads or gate,
                                             "all_workloads": state.all_workloads or [w.uuid for w in workloads]})
        return loop.with_analysis(state, op.path)

    try:
        if resumed:
            _finish_interrupted_round(loop, current(), emit)
        for _ in range(max_steps):
            state = current()
            decision = _unless_unusable(decide(state, cfg.budget, cfg.rules), generator)
            champion = state.champion.run_id if state.champion else None  # another campaign may move it
            sig = (decision.action, tuple(decision.candidate_run_ids), decision.parent_run_id, len(state.candidates),
                   champion)
            if decision.action in ("sweep", "repeat", "promote") and sig == last:
                raise RuntimeError(f"campaign {run_id}: the controller repeated '{decision.action}' of "
                                   f"{decision.candidate_run_ids} but the store shows no progress")
            last = sig
            store.log_decision(run_id, decision)
            emit("decision", decision=decision, state=state)
            if decision.action == "stop":
                break
            if decision.action == "generate":
                loop.generate(state, decision)
            elif decision.action in ("sweep", "repeat"):
                loop.full_runs(state, decision)
            elif decision.action == "promote":
                loop.promote(decision)
            else:  # "gate" is folded into "generate" by controller v1
                raise RuntimeError(f"campaign: unsupported decision action '{decision.action}'")
        else:
            raise RuntimeError(f"campaign {run_id}: no stop decision after {max_steps} steps")
    except BaseException as exc:
        # stopped from outside (Ctrl-C, SIGTERM, Ray's SIGTERM handler's sys.exit): KILLED, resumable as it is
        store.end_campaign(run_id, "KILLED" if isinstance(exc, (KeyboardInterrupt, SystemExit)) else "FAILED")
        raise
    store.end_campaign(run_id, "FINISHED")
    final = store.load_state(run_id)
    outcome = CampaignOutcome(
        campaign_run_id=run_id, operator=cfg.operator, stop_reason=decision.reason if decision else "",
        champion=store.get_champion(op.definition.name), promoted=loop.promoted,
        gated=len({c.solution_hash for c in final.candidates if c.stage == "gate"}),
        evaluations=loop.evaluations, decisions=len(final.decisions),
        rounds=sum(d.action == "generate" and d.direction != "baseline" for d in final.decisions),
    )
    emit("campaign_finished", outcome=outcome)
    return outcome

