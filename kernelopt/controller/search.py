"""Where the evidence-driven controller (v2) generates next (pure): a best-first walk over the
(solution, direction) pairs not tried yet, ordered by measured latency and the bottleneck evidence.

Rules:

* tried: a direction counts as tried from a solution once a ``generate`` decision (or a candidate run)
  names that solution as parent and that direction (:func:`kernelopt.controller.directions.tried_counts`);
  a tried direction is not tried again from the same solution while any (solution, direction) pair
  is left untried — a direction that lost from a parent does not get the budget a second time;
* parents, best first: every gate-passed solution that is not a dispatch composite, ranked by its
  latency relative to the best fully-swept solution on the same workloads (full mean / best full
  mean for swept solutions; gate mean / the best's latency on the gated workloads for the others;
  rank key, then hash, break ties). The first parent with an untried direction is the one generated
  from: the best solution's untried neighbours first; when every direction from it has been tried
  (a local optimum of the direction moves) the runner-up's untried neighbours, and so on. A parent
  that lost is still a stepping stone: its untried directions include the one that produced it, so
  coming back to it takes a longer step along a direction whose first step did not pay;
* direction on that parent, among the untried: (1) the direction that produced the parent from its
  own parent (momentum: repeat the step that led here), (2) the direction's measured record in this
  campaign, best first: its Laplace-smoothed share of wins ``(wins + 1) / (tries + 2)``, where a
  generated solution wins when its gate latency beats its parent's on the same workloads
  (:func:`direction_record`; a direction never tried scores 1/2, so one that lost elsewhere waits
  behind it), (3) the skill's directions for the bottleneck of the band with the largest share ×
  headroom, in skill order, narrowed to that band's dominant kernel when its profile names one and the seed
  says which kernel its directions act on (:func:`~kernelopt.controller.directions.focus_on_kernel`), (4) the
  bottleneck evidence of the other bands: the sum over bands naming the direction of ``priority / (1 + rank)``,
  (5) the seed's declared order;
* deferral (``rules.defer_lost_after``, 2 by default; ``None`` turns it off): a direction that lost that many times and never
  won is skipped when looking for the parent; only when no parent has another untried direction do the
  deferred ones come back (best parent first);
* count: a direction's first try asks for ``rules.probe_candidates`` candidates (the direction's own
  move), capped by the round size;
* frontier exhausted (every direction tried from every parent): widen around the best solution —
  the direction tried fewest times on it (skill order, then declared order), a full round of
  candidates (the generator's neighbour walk widens with each try).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernelopt.controller.budget import Rules
from kernelopt.controller.directions import (
    available_directions,
    direction_kernels,
    focus_on_kernel,
    tried_counts,
)
from kernelopt.controller.evidence import BandView, band_rows, band_views, latencies_for
from kernelopt.controller.selection import SolutionRuns, best_full, best_gate, rank_key
from kernelopt.data.records import CandidateRecord, Decision, Evidence


@dataclass
class Choice:
    """The next generation round: parent, direction, band, candidate count and evidence rows."""

    parent: SolutionRuns
    direction: str | None
    band: str | None
    count: int
    evidence: list[Evidence]


def relative_latency(g: SolutionRuns, best: SolutionRuns | None) -> float | None:
    """``g``'s latency over the best swept solution's on the same workloads (1.0 = as fast as the best).

    Swept solutions: full mean / best full mean. Gate-only solutions: gate mean / the best's latency on
    the gated workloads (its gate mean when it was gated on the same set, else its full-run means
    there). ``None`` when nothing comparable is known.
    """
    if best is None or best.full_mean is None or best.full_mean <= 0:
        return None
    if g.full_passed:
        return g.full_mean / best.full_mean  # type: ignore[operator]
    if not g.gate_passed:
        return None
    ref = best.latency_on(set(g.gate.per_workload_ms))  # type: ignore[union-attr]
    if ref is None or ref <= 0:
        return None
    return g.gate_mean / ref  # type: ignore[operator]


def beat_parent(g: SolutionRuns, parent: SolutionRuns) -> bool | None:
    """Whether generated solution ``g`` won against its parent: its gate latency below the parent's latency on the same
    workloads (a failed gate loses); ``None`` when they cannot be compared (no gate, or the parent not measured there)."""
    if g.gate is None:
        return None
    mine = g.latency_on(set(g.gate.per_workload_ms)) if g.gate_passed else None
    theirs = parent.latency_on(set(g.gate.per_workload_ms))
    if g.gate_passed and (mine is None or theirs is None):
        return None
    return g.gate_passed and mine < theirs  # type: ignore[operator]


def direction_record(groups: list[SolutionRuns]) -> dict[str, tuple[int, int]]:
    """(wins, losses) per direction over the campaign so far: a generated solution wins when its gate
    latency beats its parent's latency on the same workloads (failed gates lose); solutions whose parent
    was not measured there are not counted."""
    by_run = {g.run_id: g for g in groups}
    rec: dict[str, list[int]] = {}
    for g in groups:
        parent = by_run.get(g.parent_run_id) if g.parent_run_id else None
        won = beat_parent(g, parent) if parent is not None and g.direction else None
        if won is None:
            continue
        rec.setdefault(g.direction, [0, 0])[0 if won else 1] += 1
    return {d: (w, lost) for d, (w, lost) in rec.items()}


def _evidence_rank(names: list[str], views: list[BandView], analysis: dict[str, Any],
                   kernels: dict[str, str]) -> tuple[BandView | None, list[str], dict[str, float], dict[str, str],
                                                     dict[str, Any]]:
    """Top band, its preferred directions (skill order, narrowed to its dominant kernel by
    :func:`~kernelopt.controller.directions.focus_on_kernel`), every direction's evidence score over the
    other bands, the band contributing most to each direction, and the kernel focus's evidence detail."""
    table = analysis.get("directions") or {}
    top = max(views, key=lambda v: (v.priority, v.share, -v.low)) if views else None
    preferred = [n for n in table.get(top.cls, []) if n in names] if top is not None else []
    focus: dict[str, Any] = {}
    if top is not None:
        preferred, focus = focus_on_kernel(preferred, names, kernels, top.dominant_kernel)
    score = {n: 0.0 for n in names}
    best_band: dict[str, tuple[float, str]] = {}
    for v in views:
        listed = [n for n in table.get(v.cls, []) if n in names]
        for rank, n in enumerate(listed):
            w = v.priority / (1 + rank)
            if v is not top:
                score[n] += w
            if w > best_band.get(n, (-1.0, ""))[0]:
                best_band[n] = (w, v.name)
    return top, preferred, score, {n: b for n, (_, b) in best_band.items()}, focus


def choose_next(groups: list[SolutionRuns], tunable: list[SolutionRuns], analysis: dict[str, Any] | None,
                rules: Rules, decisions: list[Decision], candidates: list[CandidateRecord],
                round_size: int) -> Choice | None:
    """The next round's parent and direction by the module's rules (``None``: no parent at all)."""
    best = best_full(tunable)
    lead = best_gate(tunable) if best is None else None  # nothing swept yet: gate latencies compare
    ranked = []
    for g in tunable:
        rel = (relative_latency(g, best) if lead is None
               else (g.gate_mean / lead.gate_mean if g.gate_passed and lead.gate_mean else None))  # type: ignore[operator]
        if rel is not None:
            ranked.append((rel, rank_key(g) if g.full_passed else (float("inf"),) * 3 + (g.solution_hash,), g))
    if not ranked:
        return None
    ranked.sort(key=lambda t: (t[0], t[1]))
    by_run = {g.run_id: g for g in groups}

    record = direction_record(groups)
    after = rules.defer_lost_after
    deferred = {n for n, (w, lost) in record.items() if after is not None and w == 0 and lost >= after}

    parent = None
    untried: list[str] = []
    counts: dict[str, int] = {}
    position = 0
    for skip in ((deferred, set()) if deferred else (set(),)):  # live directions first, then the deferred
        for position, (_, _, g) in enumerate(ranked):
            names = available_directions(g, rules.directions)
            if not names:
                continue
            c = tried_counts(g.run_id, names, decisions, candidates)
            left = [n for n in names if c[n] == 0 and n not in skip]
            if left:
                parent, untried, counts = g, left, c
                break
        if parent is not None:
            break
    widen = parent is None
    if widen:
        parent = ranked[0][2]
        names = available_directions(parent, rules.directions)
        counts = tried_counts(parent.run_id, names, decisions, candidates)
        untried = list(names)
        position = 0
    names = available_directions(parent, rules.directions)
    views = band_views(analysis, latencies_for(parent, analysis)) if analysis else []
    top, preferred, score, band_of, focus = _evidence_rank(names, views, analysis or {}, direction_kernels(parent))
    came_by = parent.direction if parent.direction in names else None
    if came_by is not None and parent.parent_run_id not in by_run:
        came_by = None  # only a step that was actually taken from a known solution has momentum

    def odds(n: str) -> float:  # Laplace-smoothed share of the direction's wins so far (0.5 untried)
        w, lost = record.get(n, (0, 0))
        return (w + 1) / (w + lost + 2)

    def key(n: str) -> tuple[Any, ...]:
        return (counts[n] if widen else 0, 0 if (n == came_by and not widen) else 1, -odds(n),
                preferred.index(n) if n in preferred else len(preferred), -score[n], names.index(n))

    direction = min(untried, key=key) if untried else None
    band = None
    if top is not None:
        band = top.name if (direction is None or direction in preferred or direction not in band_of) \
            else band_of[direction]
    probe = rules.probe_candidates if rules.probe_candidates is not None else round_size
    count = round_size if widen else max(1, min(probe, round_size))
    rule = ("frontier exhausted: widen around the best (fewest tries, skill order, declared order), a full round"
            if widen else
            "best-first over (solution, direction) pairs not tried yet: the best parent with an untried "
            "direction; momentum, then the directions' measured win record, then the top band's skill "
            "directions, then the other bands' evidence, then declared order")
    rows: list[Evidence] = []
    if views:
        rows += band_rows(views)
        used = next(v for v in views if v.name == band)
        rows.append(Evidence(kind="bottleneck", subject=used.name, value=used.cls,
                             detail={**used.cls_evidence, "priority": used.priority,
                                     "top_band": top.name if top is not None else None}))
    rows.append(Evidence(kind="direction", subject=parent.run_id, value=direction,
                         detail={"available": names, "untried": [n for n in names if counts.get(n, 0) == 0],
                                 "preferred": preferred, "tried": counts, "band": band,
                                 "bottleneck": top.cls if top is not None else None, **focus,
                                 "momentum": came_by, "other_bands_score": {n: round(s, 6) for n, s in score.items()},
                                 "record": {n: list(record[n]) for n in names if n in record},
                                 "deferred": sorted(deferred),
                                 "rule": rule}))
    rows.append(Evidence(kind="frontier", subject=parent.run_id, value=ranked[position][0],
                         detail={"parent_rank": position + 1, "parents": len(ranked), "widen": widen,
                                 "best_run_id": best.run_id if best is not None else None,
                                 "count": count, "rule": "relative latency to the best on the same workloads"}))
    return Choice(parent=parent, direction=direction, band=band, count=count, evidence=rows)
