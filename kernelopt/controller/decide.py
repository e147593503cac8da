"""``decide``: the controller's state machine over what the tracking store holds.

Checks, in order (the first that applies wins):

1. wall clock spent -> ``stop`` (a hard stop, even with work pending); a registry step costs no evaluation, so
   first ``promote`` the best fully passed solution when it clears the gate of step 5 (its repeats finished
   just as the clock ran out), else, when no champion is registered yet and a solution passed every workload of
   a full run, ``promote`` that one marked provisional (fewer full runs than ``rules.repeats``);
2. nothing evaluated yet -> ``generate`` with no parent, direction ``"baseline"`` (every seed
   at its defaults);
3. gate passers without a sweep whose gate latency beats the best swept (and fully passed)
   solution's latency on the same workloads -> ``sweep`` the best ``rules.finalists`` of them;
4. fully passed solutions with fewer than ``rules.repeats`` full runs, within the noise floor of
   the best full mean and faster than the champion -> ``repeat`` (one more full run each);
5. the best fully passed solution (by mean over full runs, then p95, then variance) clears
   :func:`kernelopt.controller.promotion.gate` -> ``promote``;
6. with ``state.analysis`` (evidence, v2-lite): every band of the best fully passed solution at
   ``rules.roofline_target`` of its roofline -> ``stop``;
7. candidate budget, round budget or patience (rounds since the last promotion) spent -> ``stop``;
   these caps only stop *generation*, so work on candidates already generated finishes first;
8. with analysis, when different fully-swept solutions win different bands by more than the noise
   floor -> ``generate`` with direction ``"dispatch"``: one candidate running each band's winner behind
   a shape-read dispatch (:mod:`kernelopt.controller.specialise`; specialists in
   ``candidate_run_ids``, band edges in the ``dispatch`` evidence row), once per set of specialists;
9. nothing has passed the gate yet (every baseline failed: a start point that does not build or run on this
   device) -> ``generate`` a full round (the direction's move plus the generator's neighbours) from the latest
   failed candidate along its least-tried direction — first those ``rules.repair_directions`` (the table of
   ``skills/failures.md``) names for its failure line — with a ``failure`` evidence row (``repair``), until the
   candidate, round or patience caps stop it; ``stop`` only when no failed candidate has a direction;
10. otherwise ``generate`` from the best solution that is not a dispatch along the next direction: without analysis the
   round robin of :mod:`kernelopt.controller.directions`; with it the band with the largest latency
   share × roofline headroom and the direction its bottleneck calls for
   (:mod:`kernelopt.controller.evidence`), with ``band`` and evidence rows on the decision; the round is
   gated on that band's workloads (:func:`~kernelopt.controller.evidence.band_gate`) when the band is
   a strict part of the campaign's workloads, so a candidate that wins its band earns a sweep even if
   it loses elsewhere (and step 8 can later combine band winners).

Last, wall-clock admission (:mod:`kernelopt.controller.timing`): a ``generate``, ``sweep`` or ``repeat`` whose
evaluation would end past the wall clock, priced from the campaign's own recorded evaluation times, is cut to the
runs that fit (best first), and when none fits it is not started: the decision is then step 1's (promote what
clears the gate, else provisionally, else stop); either way with a ``time`` evidence row.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernelopt.controller.budget import Budget, Rules
from kernelopt.controller.directions import choose_direction
from kernelopt.controller.evidence import (
    band_gate,
    band_rows,
    band_views,
    choose_band_direction,
    latencies_for,
    roofline_reached,
)
from kernelopt.controller.noise import noise_floor
from kernelopt.controller.promotion import champion_mean, gate
from kernelopt.controller.search import choose_next
from kernelopt.controller.selection import (
    SolutionRuns,
    best_full,
    best_gate,
    group_by_solution,
    is_champion,
    rank_key,
)
from kernelopt.controller.specialise import DISPATCH, describe_nested, plan_dispatch
from kernelopt.controller.surrogate_turn import surrogate_evidence, surrogate_turn
from kernelopt.controller.timing import admit
from kernelopt.data.records import MODEL_GUIDED, CampaignState, ChampionInfo, Decision, Evidence

BASELINE = "baseline"


#: How the stop rules count rounds, said with them: the decisions' "round N" labels number generate steps, and a
#: one-candidate probe is one step but a fraction of a round (`make run` printed "round 9", then "patience exceeded:
#: 3 round(s)").
ROUND_NOTE = "a round is {k} candidates: a probe of fewer counts that fraction of one"


def _rounds(decisions: list[Decision], round_size: int) -> tuple[int, float, float, int]:
    """(generations after the baseline, their round equivalents, round equivalents since the last
    promotion, baseline tries). A generation asking for ``k`` candidates counts ``min(1, k / round_size)``
    rounds: a one-candidate probe is a third of a 3-candidate round, so ``max_rounds`` and ``patience`` bound
    the search effort the same whether the controller probes or asks for full rounds."""
    generations = baseline = 0
    rounds = since = 0.0
    for d in decisions:
        if d.action == "promote":
            since = 0.0
        elif d.action == "generate":
            if d.direction == BASELINE:
                baseline += 1
            else:
                generations += 1
                w = min(1.0, d.count / round_size) if d.count > 0 else 1.0  # count unknown: a full round
                rounds += w
                since += w
    return generations, rounds, since, baseline


def _latency_ev(g: SolutionRuns, stage: str) -> Evidence:
    value = g.gate_mean if stage == "gate" else g.full_mean
    return Evidence(kind="latency", subject=g.run_id, value=value,
                    detail={"stage": stage, "name": g.name, "full_runs": len(g.full)})


def _promote(groups: list[SolutionRuns], champion: ChampionInfo | None, rules: Rules, nf: float,
             base: list[Evidence], prefix: str = "") -> Decision | None:
    """Step 5: ``promote`` the best fully passed solution when it clears
    :func:`kernelopt.controller.promotion.gate` (``None`` otherwise); ``prefix`` starts the reason."""
    best = best_full(groups)
    if best is None or is_champion(best, champion):
        return None
    ok, gate_ev = gate(best, champion, rules, noise_floor=nf)
    if not ok:
        return None
    vs = "no champion yet" if champion is None else f"champion {champion.mean_latency_ms:.6g} ms"
    return Decision(action="promote", candidate_run_ids=[r.run_id for r in best.full], evidence=base + gate_ev,
                    reason=f"{prefix}promote {best.name}: mean {best.full_mean:.6g} ms over "
                           f"{len(best.full)} full run(s), all PASSED ({vs})")


def _provisional(groups: list[SolutionRuns], champion: ChampionInfo | None, rules: Rules, nf: float,
                 base: list[Evidence], spent: str) -> Decision | None:
    """At a wall-clock stop with no champion registered: ``promote`` the best fully passed solution even with
    fewer than ``rules.repeats`` full runs (a registry step, no more evaluation), so a campaign cut by its clock
    still leaves a champion to export; the ``provisional`` evidence row (and the version's tags) say so."""
    best = best_full(groups)
    if champion is not None or best is None:
        return None
    ok, gate_ev = gate(best, None, rules.model_copy(update={"repeats": 1}), noise_floor=nf)
    if not ok:
        return None
    note = Evidence(kind="provisional", subject=best.run_id, value=len(best.full),
                    detail={"required_repeats": rules.repeats, "reason": spent})
    return Decision(action="promote", candidate_run_ids=[r.run_id for r in best.full], evidence=base + gate_ev + [note],
                    reason=f"{spent} with no champion: promote {best.name} provisionally, mean {best.full_mean:.6g} ms "
                           f"over {len(best.full)} full run(s) (< {rules.repeats} required), all PASSED")


def _bar(g: SolutionRuns, swept: list[SolutionRuns]) -> float | None:
    """What ``g``'s gate latency must beat to earn a sweep: the best swept solution's latency on the
    same workloads — its own gate latency when it was gated on the same set, else its full-run means
    there (a band gate: candidates generated for one band are gated on that band's workloads)."""
    mine = set(g.gate.per_workload_ms) if g.gate is not None else set()
    vals = [v for s in swept if (v := s.latency_on(mine)) is not None]
    return min(vals) if vals else None


def _sweep_targets(groups: list[SolutionRuns], rules: Rules) -> tuple[list[SolutionRuns], float | None]:
    swept = [g for g in groups if g.swept and g.full_passed]
    bars = {g.solution_hash: _bar(g, swept) for g in groups if g.gate_passed and not g.swept and not g.full}
    pending = [g for g in groups if g.solution_hash in bars
               and (bars[g.solution_hash] is None or g.gate_mean < bars[g.solution_hash])]  # type: ignore[operator]
    pending.sort(key=lambda g: (g.gate_mean, g.solution_hash))
    known = [b for b in bars.values() if b is not None]
    return pending[: rules.finalists], (min(known) if known else None)


def _repeat_targets(groups: list[SolutionRuns], rules: Rules, nf: float,
                    champion: ChampionInfo | None) -> list[SolutionRuns]:
    best = best_full(groups)
    if best is None:
        return []
    reach = best.full_mean * (1 + nf)  # type: ignore[operator]
    out = []
    for g in groups:
        if not g.full_passed or len(g.full) >= rules.repeats or is_champion(g, champion):
            continue
        if g.full_mean > reach:  # type: ignore[operator]
            continue
        if champion is not None and g.full_mean >= champion_mean(g, champion)[0]:  # type: ignore[operator]
            continue
        out.append(g)
    out.sort(key=rank_key)
    return out[: rules.finalists]


def decide(state: CampaignState, budget: Budget, rules: Rules) -> Decision:
    """Decide the campaign's next step from its state alone (pure; see the module docstring).

    Args:
        state: Everything the tracking store holds about the campaign.
        budget: Spending caps and patience.
        rules: Gate sizes, repeats and noise rules.

    Returns:
        The decision, with the evidence it rests on and a human-readable reason.
    """
    b = _basics(state, budget, rules)
    decision = _decide(state, budget, rules, b)
    if decision.action not in ("generate", "sweep", "repeat"):
        return decision
    full = decision.action != "generate"
    runs = len(decision.candidate_run_ids) if full else (decision.count or budget.candidates_per_round)
    left = budget.wall_clock_s - state.elapsed_s
    ids = decision.workloads or list(state.gate_workloads)
    fit, late = admit(state.candidates, runs=runs, workloads=len(ids), full=full, left_s=left,
                      action=decision.action, subject=state.campaign_run_id, workload_ids=ids)
    if late is None:
        return decision
    if fit >= 1:  # the best `fit` of them: sweep and repeat targets come best first
        trimmed = ({"candidate_run_ids": decision.candidate_run_ids[:fit]} if full else {"count": fit})
        return decision.model_copy(update={
            **trimmed, "evidence": [*decision.evidence, late],
            "reason": f"{decision.reason} — {fit} of {runs} (~{late.detail['per_run_s']:.0f} s each, "
                      f"{left:.0f} s of wall clock left)"})
    ends = (f"wall clock: the {decision.action} would take ~{late.value:.0f} s, {max(left, 0.0):.0f} s left "
            f"(of {budget.wall_clock_s:.0f} s)")
    return _clock_end(b, state.champion, rules, ends, b.base + [late])


@dataclass(frozen=True)
class _Basics:
    """What every decision reads: the solutions' run groups, the noise floor, the evidence rows every decision
    carries (noise floor, counts) and the campaign's round counts (:func:`_rounds`)."""

    groups: list[SolutionRuns]
    nf: float
    base: list[Evidence]
    generations: int
    rounds: float
    since: float
    baseline_tries: int
    gated: int


def _basics(state: CampaignState, budget: Budget, rules: Rules) -> _Basics:
    groups = group_by_solution(state.candidates)
    champion = state.champion
    default_nf = champion.noise_floor if champion and champion.noise_floor is not None else rules.noise_floor_default
    nf, nf_ev = noise_floor(groups, default_nf)
    generations, rounds, since, baseline_tries = _rounds(state.decisions, budget.candidates_per_round)
    gated = sum(g.gate is not None for g in groups)
    counts = Evidence(kind="counts", subject=state.campaign_run_id, value=gated,
                      detail={"gated": gated, "swept": sum(g.swept for g in groups), "generations": generations,
                              "rounds": round(rounds, 3), "rounds_since_promotion": round(since, 3),
                              "elapsed_s": state.elapsed_s})
    return _Basics(groups, nf, [nf_ev, counts], generations, rounds, since, baseline_tries, gated)


def _clock_end(b: _Basics, champion: ChampionInfo | None, rules: Rules, why: str, base: list[Evidence]) -> Decision:
    """The wall clock ends the campaign: promote a finalist that clears the gate, else (no champion yet) the best
    fully passed solution provisionally, else stop; ``why`` starts the reason, ``base`` is the evidence."""
    return (_promote(b.groups, champion, rules, b.nf, base, f"{why}; ")
            or _provisional(b.groups, champion, rules, b.nf, base, why)
            or Decision(action="stop", reason=why, evidence=base))


def _decide(state: CampaignState, budget: Budget, rules: Rules, b: _Basics) -> Decision:
    """Steps 1-10 of the module docstring (before the wall-clock admission of :func:`decide`)."""
    groups, nf, base, champion = b.groups, b.nf, b.base, state.champion
    generations, since, gated = b.generations, b.since, b.gated

    def stop(reason: str) -> Decision:
        return Decision(action="stop", reason=reason, evidence=base)

    if state.elapsed_s >= budget.wall_clock_s:
        spent = f"wall-clock budget spent ({state.elapsed_s:.0f} s >= {budget.wall_clock_s:.0f} s)"
        return _clock_end(b, champion, rules, spent, base)

    if not groups:
        if b.baseline_tries >= 2:
            return stop(f"baseline generation was tried {b.baseline_tries} times and no candidate was evaluated")
        return Decision(action="generate", direction=BASELINE, count=budget.max_candidates,
                        workloads=list(state.gate_workloads), evidence=base,
                        reason="nothing evaluated yet: gate every seed at its default parameters (baseline)")

    sweep, bar = _sweep_targets(groups, rules)
    if sweep:
        ev = base + [_latency_ev(g, "gate") for g in sweep]
        bar_txt = ("no solution swept yet" if bar is None  # a swept solution's mean on the gate's workloads, not
                   else f"a swept solution's mean on the gate's workloads: {bar:.6g} ms")  # its full sweep's mean
        return Decision(action="sweep", candidate_run_ids=[g.run_id for g in sweep],
                        workloads=list(state.all_workloads), evidence=ev,
                        reason=f"{len(sweep)} gate passer(s) beat the bar ({bar_txt}): full sweep of "
                               + ", ".join(f"{g.name} ({g.gate_mean:.6g} ms)" for g in sweep))

    repeat = _repeat_targets(groups, rules, nf, champion)
    if repeat:
        ev = base + [_latency_ev(g, "full") for g in repeat]
        return Decision(action="repeat", candidate_run_ids=[g.run_id for g in repeat],
                        workloads=list(state.all_workloads), evidence=ev,
                        reason=f"finalist(s) within the noise floor ({nf:.2%}) of the best need "
                               f"{rules.repeats} full runs: "
                               + ", ".join(f"{g.name} ({len(g.full)} run(s), {g.full_mean:.6g} ms)" for g in repeat))

    promote = _promote(groups, champion, rules, nf, base)
    if promote is not None:
        return promote
    best = best_full(groups)
    if state.analysis and best is not None:
        views = band_views(state.analysis, latencies_for(best, state.analysis))
        if roofline_reached(views, rules.roofline_target):
            return Decision(action="stop", evidence=base + band_rows(views),
                            reason=f"every band reached {rules.roofline_target:.0%} of its roofline: "
                                   + ", ".join(f"{v.name} {v.fraction:.0%}" for v in views))

    if gated >= budget.max_candidates:
        return stop(f"candidate budget spent ({gated} >= {budget.max_candidates})")
    if b.rounds >= budget.max_rounds - 1e-9:
        return stop(f"round budget spent ({b.rounds:.3g} >= {budget.max_rounds}; "
                    f"{ROUND_NOTE.format(k=budget.candidates_per_round)})")
    if since >= budget.patience - 1e-9:
        return stop(f"patience exceeded: {since:.3g} round(s) without a promotion (patience {budget.patience}; "
                    f"{ROUND_NOTE.format(k=budget.candidates_per_round)})")

    if state.analysis and best is not None:
        plan = plan_dispatch(groups, state.analysis, list(state.all_workloads), nf, rules, state.decisions)
        if plan is not None:
            d = plan.detail
            return Decision(action="generate", parent_run_id=best.run_id, direction=DISPATCH, count=1,
                            candidate_run_ids=list(d["specialists"]), workloads=list(state.gate_workloads),
                            evidence=base + [_latency_ev(best, "full"), plan],
                            reason=f"round {generations + 1}: bands disagree on the best solution — dispatch over "
                                   f"{d['axis']} to " + ", ".join(d["names"]) + f" (edges {d['uppers']}"
                                   + describe_nested(d)
                                   + f"; estimated gain {plan.value:.1%} over {best.name})")

    # a dispatch is a composite of specialists: tuning continues from the best non-composite solution
    tunable = [g for g in groups if g.direction != DISPATCH]
    parent = lead = best_full(tunable) or best_gate(tunable)
    round_size = min(budget.candidates_per_round, budget.max_candidates - gated)
    if parent is None:
        return _repair(tunable, state, rules, round_size, generations, base) or stop(
            "no candidate passed the gate and no failed candidate has a direction: nothing to generate from")
    band = None
    count = round_size
    if state.analysis:
        choice = choose_next(groups, tunable, state.analysis, rules, state.decisions, state.candidates, round_size)
        if choice is not None:
            parent, direction, band, count, dir_evs = (choice.parent, choice.direction, choice.band, choice.count,
                                                       choice.evidence)
        else:
            direction, band, dir_evs = choose_band_direction(parent, state.analysis, rules, state.decisions,
                                                             state.candidates)
    else:
        direction, dir_ev = choose_direction(parent, rules.directions, state.decisions, state.candidates)
        dir_evs = [dir_ev]
    why = surrogate_turn(rules, state.decisions, groups) if state.analysis else None
    if why is not None:  # this round is the surrogate's (rules.surrogate): one point from the best solution's seed space
        parent, direction, band, count = lead, MODEL_GUIDED, None, 1
        dir_evs = [surrogate_evidence(rules, why, len(groups))]
    elif state.analysis and rules.surrogate is not None and rules.surrogate_turns == "neighbours":
        dir_evs = [*dir_evs, surrogate_evidence(rules, "the round's candidates beyond the direction's own move, "
                                                "nearest first, ranked by the surrogate", len(groups))]
    stage = "full" if parent.full_passed else "gate"
    focus = f" for band {band!r}" if band else ""
    workloads = band_gate(state.analysis, band, list(state.all_workloads), rules.gate_size) if band else []
    if workloads:
        own, joined = len(workloads), ""
        if rules.band_gate_with_representatives:  # the band's gate and the campaign's, as one set
            mine = set(workloads) | set(state.gate_workloads)
            workloads = [u for u in state.all_workloads if u in mine]
            joined = f" and the campaign's gate: {len(workloads)} in all"
        focus += f" (gated on {own} of its workloads{joined})"
    return Decision(action="generate", parent_run_id=parent.run_id, direction=direction, count=count, band=band,
                    workloads=workloads or list(state.gate_workloads),
                    evidence=base + [_latency_ev(parent, stage), *dir_evs],
                    reason=f"round {generations + 1}: {count} candidate(s) from {parent.name} "
                           f"({stage} mean {(parent.full_mean if stage == 'full' else parent.gate_mean):.6g} ms) "
                           f"along direction {direction!r}{focus}")


def _repair(groups: list[SolutionRuns], state: CampaignState, rules: Rules, round_size: int, generations: int,
            base: list[Evidence]) -> Decision | None:
    """Step 9: a full round from the latest failed candidate (``None`` when no failed candidate has a
    direction). Its failure line is matched against ``rules.repair_directions`` (first pattern it contains,
    case-insensitive): the least-tried of that pattern's directions the candidate has goes first; else the
    round robin of :func:`choose_direction`."""
    failed = sorted((g for g in groups if g.gate is not None), key=lambda g: g.gate.start_time, reverse=True)
    for broken in failed:
        rec = broken.gate
        low = (rec.failure or "").lower()
        pattern = next((p for p in rules.repair_directions if low and p.lower() in low), None)
        direction, dir_ev = choose_direction(broken, rules.directions, state.decisions, state.candidates,
                                             prefer=rules.repair_directions.get(pattern) if pattern else None)
        if direction is None:
            continue
        wanted = dir_ev.detail.get("preferred")
        if wanted:
            dir_ev.detail.update(repair_pattern=pattern,
                                 rule="repair table (skills/failures.md): " + dir_ev.detail["rule"])
        fail = Evidence(kind="failure", subject=broken.run_id, value=rec.status,
                        detail={"name": broken.name, "passed": rec.pass_count, "workloads": rec.workload_count,
                                "failure": rec.failure, "pattern": pattern,
                                "rule": "nothing passed yet: repair from the latest failed candidate"})
        why = f"; {rec.failure!r} matches {pattern!r}" if pattern and wanted else ""
        return Decision(action="generate", parent_run_id=broken.run_id, direction=direction, count=round_size,
                        workloads=list(state.gate_workloads), evidence=base + [fail, dir_ev],
                        reason=f"round {generations + 1}: no candidate passed the gate yet; {round_size} "
                               f"candidate(s) from the failed {broken.name} ({rec.status}, {rec.pass_count}/"
                               f"{rec.workload_count} passed{why}) along direction {direction!r} (repair)")
    return None
