"""Which optimisation direction to try next on a parent (pure, deterministic).

Rule: among the directions available for the parent, pick the one tried the fewest times on
that parent; ties go to the earliest in the declared order. So the first pass walks the list in
order (round robin over untried directions) and later passes cycle through it again.
"""

from __future__ import annotations

import json
from typing import Any

from kernelopt.controller.selection import SolutionRuns
from kernelopt.data.records import CandidateRecord, Decision, Evidence

#: Run parameter holding the direction names a candidate's seed declares.
DIRECTIONS_PARAM = "directions"
#: Run parameter holding, for a solution of several kernels, the kernel each direction acts on
#: (``{direction: part of a kernel name}``, from the seed's ``directions.<name>.kernel``).
DIRECTION_KERNELS_PARAM = "direction_kernels"


def _decoded(value: Any) -> Any:
    """A run parameter as logged: JSON text of a list or a dict decoded, anything else as it is."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def parse_directions(value: Any) -> list[str]:
    """Direction names from a run parameter (a JSON list, a comma list or a list)."""
    value = _decoded(value)
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [t.strip() for t in str(value).split(",") if t.strip()]


def available_directions(parent: SolutionRuns, fallback: list[str]) -> list[str]:
    """Directions declared by the parent's runs, else the fallback list from the rules."""
    for r in ([parent.gate] if parent.gate else []) + parent.full:
        names = parse_directions(r.params.get(DIRECTIONS_PARAM))
        if names:
            return names
    return list(fallback)


def direction_kernels(parent: SolutionRuns) -> dict[str, str]:
    """``{direction: kernel}`` declared by the parent's runs (``{}`` when none names a kernel)."""
    for r in ([parent.gate] if parent.gate else []) + parent.full:
        value = _decoded(r.params.get(DIRECTION_KERNELS_PARAM))
        if isinstance(value, dict) and value:
            return {str(k): str(v) for k, v in value.items() if v}
    return {}


def focus_on_kernel(preferred: list[str], names: list[str], kernels: dict[str, str],
                    dominant: str | None) -> tuple[list[str], dict[str, Any]]:
    """The preferred directions narrowed to the profile's dominant kernel, and the evidence detail.

    Rule: when the band's profile names its dominant kernel and some of the parent's directions act on it
    (their ``kernel`` is part of its name), the preferred directions that act on another kernel drop out, and
    the dominant kernel's own directions follow the remaining preferred ones (in declared order): a move on a
    kernel that takes a small share of the call cannot save more than that share. Directions naming no kernel
    act on every kernel and stay. Unchanged when there is no dominant kernel or no direction names it.
    """
    if not dominant or not kernels:
        return preferred, {}
    mine = [n for n in names if kernels.get(n) and kernels[n] in dominant]
    if not mine:
        return preferred, {"dominant_kernel": dominant, "kernel_rule": "no direction names the dominant kernel"}
    kept = [n for n in preferred if n not in kernels or n in mine]
    return kept + [n for n in mine if n not in kept], {
        "dominant_kernel": dominant, "on_dominant_kernel": mine,
        "kernel_rule": "directions on another kernel than the profile's dominant one lose their preference; "
                       "the dominant kernel's own directions are preferred after the skill's"}


def tried_counts(parent_run_id: str, names: list[str], decisions: list[Decision],
                 candidates: list[CandidateRecord]) -> dict[str, int]:
    """How often each direction was tried on the parent.

    Generate decisions are counted (a round whose proposals were all duplicates still tried its
    direction); a direction seen only on candidate runs counts once.
    """
    counts = {n: 0 for n in names}
    for d in decisions:
        if d.action == "generate" and d.parent_run_id == parent_run_id and d.direction in counts:
            counts[d.direction] += 1
    for c in candidates:
        if c.parent_run_id == parent_run_id and c.direction in counts and counts[c.direction] == 0:
            counts[c.direction] = 1
    return counts


def choose_direction(parent: SolutionRuns, fallback: list[str], decisions: list[Decision],
                     candidates: list[CandidateRecord],
                     prefer: list[str] | None = None) -> tuple[str | None, Evidence]:
    """Next direction for ``parent`` (``None`` when none is known) and the evidence used. With ``prefer``, the
    choice is among those of them the parent has (in ``prefer``'s order), when there are any."""
    names = available_directions(parent, fallback)
    if not names:
        return None, Evidence(kind="direction", subject=parent.run_id, value=None,
                              detail={"available": [], "rule": "no directions known"})
    preferred = [n for n in prefer or [] if n in names]
    pool = preferred or names
    counts = tried_counts(parent.run_id, pool, decisions, candidates)
    choice = min(pool, key=lambda n: (counts[n], pool.index(n)))
    detail: dict = {"available": names, "tried": counts, "rule": "fewest tries on this parent, then declared order"}
    if preferred:
        detail.update(preferred=preferred, rule="fewest tries on this parent among the preferred, then their order")
    return choice, Evidence(kind="direction", subject=parent.run_id, value=choice, detail=detail)
