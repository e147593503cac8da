"""When the evidence-driven controller hands a round to the generator's surrogate model (pure).

With ``rules.surrogate`` set (``"rbf"`` or ``"additive"``), step 10 of :func:`kernelopt.controller.decide.decide`
asks, on the turns :func:`surrogate_turn` names, for one ``model_guided`` candidate from the best solution instead of
the evidence-chosen direction: the generator proposes the unmeasured point of that solution's seed space with the
lowest GP lower confidence bound fitted to every measurement of the campaign so far
(:mod:`kernelopt.generators.surrogate`). The direction walk's moves are single steps from one parent; the surrogate
reads every point measured so far at once.

**Off by default, for a measured reason**: replayed over the 38 H200 table x budget configurations, 20 seeds each
(``benchmarks/surrogate_ablation.py`` -> ``benchmarks/results/surrogate_ablation.md``, 2026-12-07), no variant beats
the evidence walk alone - each is worse than it on more configurations than it is better (``always``: better on 11,
worse on 22; ``neighbours``: 8 / 7, median 0.885 vs 0.881). It helps where a smooth model fits the space (the
60-point persistent GDN decode space 0.55 -> 0.32-0.46 at budget 48, the 48-point CUDA decode space with the additive
kernel 0.61 -> 0.46 at 16) and hurts where the gate's three workloads mislead it or the space is lumpy (the lean decode
space 1.00 -> 2.01 at 12, rmsnorm 0.245 -> 0.420 at 48). ``neighbours`` is the default turn, the least harmful.

Turns (``rules.surrogate_turns``):

* ``"alternate"``: the surrogate when the last generation from a tunable parent was not its own - evidence
  direction and surrogate by turns;
* ``"always"``: every step-10 generation (the bands, sweeps, repeats, promotions and dispatches stay the
  controller's);
* ``"on_loss"``: the surrogate after an evidence-chosen round none of whose candidates beat its parent on the gate;
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


def surrogate_evidence(rules: Rules, why: str, measured: int) -> Evidence:
    """The ``surrogate`` evidence row of a decision the surrogate acts on: the model the generator fits (kernel,
    length scale, kappa: the offline generator reads them from this row), why, and whether it only ranks the round's
    neighbours (``"neighbours"`` turns)."""
    return Evidence(kind="surrogate", subject=MODEL_GUIDED, value=rules.surrogate,
                    detail={"name": rules.surrogate, "ls": rules.surrogate_ls, "kappa": rules.surrogate_kappa,
                            "turns": rules.surrogate_turns, "why": why, "measured_solutions": measured,
                            "neighbours": rules.surrogate_turns == "neighbours"})
