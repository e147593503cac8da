"""When the evidence-driven controller hands a round to the generator's surrogate model (pure).

With ``rules.surrogate`` set (``"rbf"`` or ``"additive"``), step 10 of :func:`kernelopt.controller.decide.decide`
asks, on the turns :func:`surrogate_turn` names, for one ``model_guided`` candidate from the best solution instead of
the evidence-chosen direction: the generator proposes the unmeasured point of that solution's seed space with the
lowest GP lower confidence bound fitted to every measurement of the campaign so far
(:mod:`kernelopt.generators.surrogate`). The direction walk's moves are single steps from one parent; the surrogate
reads every point measured so far at once.

**Off by default, for a measured reason**: replayed over the 38 H200 table x budget configurations, 20 seeds each
(``benchmarks/surrogate_ablation.py`` -> ``benchmarks/results/surrogate_ablation.md``, rerun 2026-12-07 stop 68 with
``race``), no variant beats the evidence walk alone - each is worse than it on more configurations than it is better
(``always``: better on 10, worse on 23; ``race``: 15 / 17, median 0.849 vs 0.881; ``neighbours``: 8 / 7, median 0.885).
It helps where a smooth model fits the space (the 60-point persistent GDN decode space 0.55 -> 0.32-0.52 at budget 48,
the 48-point CUDA decode space with the additive kernel 0.61 -> 0.46 at 16) and hurts where the gate's three workloads
mislead it or the space is lumpy (the lean decode space 1.00 -> 1.74-1.83 at 12, gemm184 0.28 -> 0.47 at 48).
``neighbours`` is the default turn, the least harmful.

Turns (``rules.surrogate_turns``):

* ``"alternate"``: the surrogate when the last generation from a tunable parent was not its own - evidence
  direction and surrogate by turns;
* ``"always"``: every step-10 generation (the bands, sweeps, repeats, promotions and dispatches stay the
  controller's);
* ``"on_loss"``: the surrogate after an evidence-chosen round none of whose candidates beat its parent on the gate;
* ``"race"``: whichever of the two found a new best more often so far (:func:`round_wins`: a round wins when one of
  its candidates beats the campaign's best of the time on the gate; Laplace-smoothed shares, the surrogate on a tie)
  - an evidence-driven choice between the model and the walk, measured to help on 15 configurations and hurt on 17;
* ``"neighbours"`` (default): no round of its own - every evidence round keeps its parent and direction, and the candidates
  beyond the direction's own move (a move already measured or invalid, a widening round) are the nearest unmeasured
  points the surrogate rates best instead of random neighbours.
"""

from __future__ import annotations

from kernelopt.controller.budget import Rules
from kernelopt.controller.search import beat_parent
from kernelopt.controller.selection import SolutionRuns
from kernelopt.data.records import MODEL_GUIDED, Decision, Evidence

#: directions of rounds that are not the evidence walk's nor the surrogate's (never count as a turn)
NOT_A_TURN = ("baseline", "dispatch")


def surrogate_turn(rules: Rules, decisions: list[Decision], groups: list[SolutionRuns]) -> str | None:
    """Why this step-10 round goes to the surrogate, or ``None`` when it stays the evidence walk's."""
    if rules.surrogate is None or rules.surrogate_turns == "neighbours":
        return None
    walk = [d for d in decisions if d.action == "generate" and d.direction not in NOT_A_TURN]
    if not walk:
        return None  # the first round after the baseline is the evidence's: one measurement is nothing to fit
    last = walk[-1]
    if rules.surrogate_turns == "always":
        return "every round after the first (surrogate_turns=always)"
    if rules.surrogate_turns == "race":
        return _race(walk, groups)
    if last.direction == MODEL_GUIDED:
        return None
    if rules.surrogate_turns == "alternate":
        return f"the last round ({last.direction!r}) was the evidence walk's (surrogate_turns=alternate)"
    by_run = {g.run_id: g for g in groups}
    parent = by_run.get(last.parent_run_id) if last.parent_run_id else None
    mine = [g for g in groups if g.parent_run_id == last.parent_run_id and g.direction == last.direction]
    if parent is None or not mine:
        return None
    if any(beat_parent(g, parent) for g in mine):  # the walk's own win rule (direction_record's)
        return None
    return f"the last round ({last.direction!r} from {parent.name}) lost to its parent (surrogate_turns=on_loss)"


def round_wins(rounds: list[Decision], groups: list[SolutionRuns]) -> list[bool | None]:
    """Per generation round (in order): whether one of its candidates beat the campaign's best solution of the time on
    the gate (:func:`~kernelopt.controller.search.beat_parent` against the round's ``frontier`` best, else its parent:
    the surrogate's rounds start from the best); ``None`` when it gated nothing comparable. A round's candidates are
    the gated solutions naming its parent and direction, taken in gating order, at most its count."""
    by_run = {g.run_id: g for g in groups}
    queues: dict[tuple[str | None, str | None], list[SolutionRuns]] = {}
    for g in sorted((g for g in groups if g.gate is not None), key=lambda g: g.gate.start_time):  # type: ignore[union-attr]
        queues.setdefault((g.parent_run_id, g.direction), []).append(g)
    out: list[bool | None] = []
    for d in rounds:
        queue = queues.get((d.parent_run_id, d.direction), [])
        take = max(1, d.count)  # a count of 0 (not recorded): one candidate
        mine = queue[:take]
        del queue[:take]
        best = next((e.detail.get("best_run_id") for e in d.evidence if e.kind == "frontier"), None) or d.parent_run_id
        ref = by_run.get(best) if best else None
        judged = [beat_parent(g, ref) for g in mine] if ref is not None else []
        known = [w for w in judged if w is not None]
        out.append(any(known) if known else None)
    return out


def _race(walk: list[Decision], groups: list[SolutionRuns]) -> str | None:
    """``"race"`` turns: the surrogate when its rounds' share of new bests (Laplace-smoothed) is at least the evidence
    walk's, else the walk."""
    wins = round_wins(walk, groups)
    tally = {True: [0, 0], False: [0, 0]}  # surrogate?, -> [new bests, rounds judged]
    for d, w in zip(walk, wins, strict=True):
        if w is not None:
            t = tally[d.direction == MODEL_GUIDED]
            t[0] += w
            t[1] += 1
    odds = {k: (w + 1) / (n + 2) for k, (w, n) in tally.items()}
    if odds[True] < odds[False]:
        return None
    return (f"its rounds found a new best {tally[True][0]} of {tally[True][1]} times against the walk's "
            f"{tally[False][0]} of {tally[False][1]} (surrogate_turns=race)")


def surrogate_evidence(rules: Rules, why: str, measured: int) -> Evidence:
    """The ``surrogate`` evidence row of a decision the surrogate acts on: the model the generator fits (kernel,
    length scale, kappa: the offline generator reads them from this row), why, and whether it only ranks the round's
    neighbours (``"neighbours"`` turns)."""
    return Evidence(kind="surrogate", subject=MODEL_GUIDED, value=rules.surrogate,
                    detail={"name": rules.surrogate, "ls": rules.surrogate_ls, "kappa": rules.surrogate_kappa,
                            "turns": rules.surrogate_turns, "why": why, "measured_solutions": measured,
                            "neighbours": rules.surrogate_turns == "neighbours"})
