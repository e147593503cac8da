"""Controller v2's search rules (kernelopt.controller.search): untried (solution, direction) pairs
best first, momentum, one-candidate probes, widening, relative latency of band-gated candidates."""

from __future__ import annotations

import pytest
from ctl_states import ALL, GATE, baseline, promote, rec, state

from kernelopt.controller import Budget, Rules, decide
from kernelopt.controller.search import relative_latency
from kernelopt.controller.selection import group_by_solution
from kernelopt.data.records import ChampionInfo, Decision

NAMES = ["more_rows", "fewer_rows", "narrow", "wide"]
DIRS = {"directions": NAMES}
#: one band over every workload, profiled memory-bound; the skill table prefers wide, then fewer_rows
ANALYSIS = {
    "bands": {"band_axis": "batch", "bands": [{"name": "all", "workloads": ALL, "low": 0}]},
    "bottlenecks": {"all": {"class": "memory_bound", "source": "profile", "evidence": {"dram_pct": 80}}},
    "directions": {"memory_bound": ["wide", "fewer_rows"]},
}
BUDGET = Budget(max_candidates=40, max_rounds=40, patience=40, candidates_per_round=3)
RULES = Rules(repeats=1, probe_candidates=1)
PW = {u: 2.0 for u in ALL}


def gen_from(parent: str, direction: str) -> Decision:
    return Decision(action="generate", reason="r", parent_run_id=parent, direction=direction)


def _state(*extra, decisions=()):
    cands = [rec("g1", "a", "gate", 1.0, params=DIRS), rec("s1", "a", "sweep", 2.0, per_workload=PW), *extra]
    s = state(*cands, decisions=[baseline(), promote(), *decisions],
              champion=ChampionInfo(run_id="s1", mean_latency_ms=2.0))
    return s.model_copy(update={"analysis": ANALYSIS})


def _ev(d, kind):
    return next(e for e in d.evidence if e.kind == kind)


def test_first_round_probes_the_skill_direction_with_one_candidate():
    d = decide(_state(), BUDGET, RULES)
    assert d.action == "generate" and d.parent_run_id == "g1" and d.direction == "wide" and d.count == 1
    assert {"band_share", "roofline", "bottleneck", "direction", "frontier", "noise_floor"} <= {e.kind for e in d.evidence}
    assert _ev(d, "bottleneck").subject == d.band == "all"
    assert Rules().probe_candidates is None  # default: a full round, as before
    assert decide(_state(), BUDGET, Rules(repeats=1)).count == 3


def test_a_direction_that_lost_from_a_parent_is_not_tried_again_while_others_are_untried():
    loser = [rec("g2", "b", "gate", 1.5, parent="g1", direction="wide", params=DIRS),
             rec("s2", "b", "sweep", 2.5, per_workload={u: 2.5 for u in ALL})]
    d = decide(_state(*loser, decisions=[gen_from("g1", "wide")]), BUDGET, RULES)
    assert d.parent_run_id == "g1" and d.direction == "fewer_rows"  # next skill direction, untried
    d = decide(_state(*loser, decisions=[gen_from("g1", n) for n in ("wide", "fewer_rows")]), BUDGET, RULES)
    assert d.parent_run_id == "g1" and d.direction == "more_rows"  # then declared order, still untried
    assert _ev(d, "direction").detail["untried"] == ["more_rows", "narrow"]


def test_exhausted_best_hands_over_to_the_runner_up_with_momentum():
    # b (5 % slower than a) came from a along "narrow"; every direction was tried from a
    runner = [rec("g2", "b", "gate", 1.05, parent="g1", direction="narrow", params=DIRS),
              rec("s2", "b", "sweep", 2.1, per_workload={u: 2.1 for u in ALL})]
    done = [gen_from("g1", n) for n in NAMES]
    d = decide(_state(*runner, decisions=done), BUDGET, RULES)
    assert d.parent_run_id == "g2" and d.direction == "narrow" and d.count == 1  # a longer step along narrow
    fr = _ev(d, "frontier")
    assert fr.detail["parent_rank"] == 2 and fr.value == pytest.approx(1.05) and fr.detail["widen"] is False
    assert _ev(d, "direction").detail["momentum"] == "narrow"
    d = decide(_state(*runner, decisions=done + [gen_from("g2", "narrow")]), BUDGET, RULES)
    assert d.parent_run_id == "g2" and d.direction == "wide"  # then the skill's order on the runner-up


def test_frontier_exhausted_widens_around_the_best_with_a_full_round():
    runner = [rec("g2", "b", "gate", 1.05, parent="g1", direction="narrow", params=DIRS),
              rec("s2", "b", "sweep", 2.1, per_workload={u: 2.1 for u in ALL})]
    done = [gen_from(p, n) for p in ("g1", "g2") for n in NAMES]
    d = decide(_state(*runner, decisions=done), BUDGET, RULES)
    assert d.parent_run_id == "g1" and d.direction == "wide" and d.count == BUDGET.candidates_per_round
    assert _ev(d, "frontier").detail["widen"] is True
    d = decide(_state(*runner, decisions=done + [gen_from("g1", "wide")]), BUDGET, RULES)
    assert d.direction == "fewer_rows"  # fewest tries first


def test_relative_latency_compares_band_gated_candidates_on_their_own_workloads():
    best = [rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0,
                                             per_workload={"w-small": 1.0, "w-mid": 1.0, "w-large": 1.0,
                                                           "w-4": 3.0, "w-5": 4.0})]
    band = rec("g2", "b", "gate", 1.5, n=2, per_workload={"w-4": 1.0, "w-5": 2.0})
    same = rec("g3", "c", "gate", 0.9)
    groups = {g.solution_hash: g for g in group_by_solution([*best, band, same])}
    a = groups["hash_a"]
    assert relative_latency(a, a) == 1.0
    assert relative_latency(groups["hash_b"], a) == pytest.approx(1.5 / 3.5)  # the best's w-4/w-5 mean
    assert relative_latency(groups["hash_c"], a) == pytest.approx(0.9)  # same gate set: gate vs gate
    assert relative_latency(groups["hash_c"], None) is None
    assert set(GATE) < set(ALL)


def test_a_direction_that_lost_elsewhere_waits_behind_untried_ones_on_a_new_parent():
    """Measured outcomes rank directions: on a new best solution, a direction the skill prefers but that
    already lost from another parent comes after the directions with no record (Laplace-smoothed wins)."""
    from kernelopt.controller.search import direction_record

    lost_wide = [rec("g2", "b", "gate", 1.5, parent="g1", direction="wide", params=DIRS)]  # gate 1.5 > 1.0
    new_best = [rec("g3", "c", "gate", 0.8, parent="g1", direction="narrow", params=DIRS),
                rec("s3", "c", "sweep", 1.6, per_workload={u: 1.6 for u in ALL})]
    tried = [gen_from("g1", "wide"), gen_from("g1", "narrow"), gen_from("g3", "narrow")]
    promoted = {"champion": ChampionInfo(run_id="s3", mean_latency_ms=1.6)}
    s = _state(*lost_wide, *new_best, decisions=tried).model_copy(update=promoted)
    assert direction_record(group_by_solution(s.candidates)) == {"wide": (0, 1), "narrow": (1, 0)}
    d = decide(s, BUDGET, RULES)
    assert d.parent_run_id == "g3" and d.direction == "fewer_rows"  # not the skill's first, "wide"
    # without the loss on record, the skill's order decides
    s2 = _state(*new_best, decisions=tried).model_copy(update=promoted)
    assert decide(s2, BUDGET, RULES).direction == "wide"


def test_defer_lost_after_moves_on_to_the_runner_up_instead_of_a_direction_that_lost_twice():
    """With ``defer_lost_after=2``, a direction that lost twice (from two other parents) and never won waits:
    the runner-up's untried direction goes first, although the champion still has it untried (the default since
    2026-12-01; ``None`` turns it off)."""
    tree = [rec("g3", "c", "gate", 1.05, parent="g1", direction="narrow", params=DIRS),
            rec("s3", "c", "sweep", 2.1, per_workload={u: 2.1 for u in ALL}),
            rec("g4", "d", "gate", 1.5, parent="g3", direction="wide", params=DIRS),  # lost (c: 1.05)
            rec("g6", "f", "gate", 1.2, parent="g1", direction="more_rows", params=DIRS),
            rec("g7", "h", "gate", 1.9, parent="g6", direction="wide", params=DIRS)]  # lost (f: 1.2)
    tried = [gen_from("g1", n) for n in ("narrow", "more_rows", "fewer_rows")] + [gen_from("g3", "wide"),
                                                                                 gen_from("g6", "wide")]
    s = _state(*tree, decisions=tried)
    d = decide(s, BUDGET, RULES.model_copy(update={"defer_lost_after": None}))
    assert d.parent_run_id == "g1" and d.direction == "wide"  # off: the champion's last untried direction
    assert RULES.defer_lost_after == 2
    d = decide(s, BUDGET, RULES)
    assert d.parent_run_id == "g3" and d.direction == "narrow"  # the runner-up, momentum
    assert _ev(d, "direction").detail["deferred"] == ["wide"]
    d = decide(s, BUDGET, RULES.model_copy(update={"defer_lost_after": 3}))
    assert d.parent_run_id == "g1" and d.direction == "wide"  # two losses are not three
    # every other pair tried: the deferred direction comes back on the best parent
    rest = [gen_from(p, n) for p in ("g3", "g6", "g4", "g7") for n in NAMES if n != "wide" or p in ("g4", "g7")]
    d = decide(_state(*tree, decisions=tried + rest), BUDGET, RULES.model_copy(update={"defer_lost_after": 2}))
    assert d.parent_run_id == "g1" and d.direction == "wide" and not _ev(d, "frontier").detail["widen"]


# --------------------------------------------------------------------------- kernel focus (several kernels)
KERNEL_NAMES = ["smaller_chunks", "cap_registers", "fewer_walk_warps", "fewer_output_warps"]
KERNELS = {"cap_registers": "_prep_kernel", "fewer_walk_warps": "_h_kernel", "fewer_output_warps": "_o_kernel"}


def _kernel_state(dominant: str | None, kernels=KERNELS, decisions=()):
    """One profiled occupancy-limited band whose skill list prefers cap_registers, then smaller_chunks; the
    profile names ``dominant`` as the kernel with the largest share."""
    prm = {"directions": KERNEL_NAMES, "direction_kernels": kernels}
    cands = [rec("g1", "a", "gate", 1.0, params=prm), rec("s1", "a", "sweep", 2.0, per_workload=PW)]
    metrics = {"waves_per_sm": 0.5, **({"dominant_kernel": dominant} if dominant else {})}
    analysis = {**ANALYSIS, "directions": {"occupancy_limited": ["cap_registers", "smaller_chunks"]},
                "bottlenecks": {"all": {"class": "occupancy_limited", "source": "profile",
                                        "evidence": {"rule": "waves", "metrics": metrics}}}}
    s = state(*cands, decisions=[baseline(), promote(), *decisions],
              champion=ChampionInfo(run_id="s1", mean_latency_ms=2.0))
    return s.model_copy(update={"analysis": analysis})


def test_the_dominant_kernels_own_directions_come_first():
    # no kernel named: the skill's order (cap_registers acts on the prep kernel)
    assert decide(_kernel_state(None), BUDGET, RULES).direction == "cap_registers"
    # the prep kernel dominates: its own direction is also the skill's first
    d = decide(_kernel_state("_prep_kernel"), BUDGET, RULES)
    assert d.direction == "cap_registers" and _ev(d, "direction").detail["on_dominant_kernel"] == ["cap_registers"]
    # the output kernel dominates: cap_registers (prep) loses its preference; the skill's kernel-free
    # smaller_chunks first, then the output kernel's own direction ahead of the declared order
    d = decide(_kernel_state("_wy_o_kernel"), BUDGET, RULES)
    ev = _ev(d, "direction")
    assert d.direction == "smaller_chunks"
    assert ev.detail["preferred"] == ["smaller_chunks", "fewer_output_warps"]
    assert ev.detail["dominant_kernel"] == "_wy_o_kernel" and "kernel_rule" in ev.detail
    d = decide(_kernel_state("_wy_o_kernel", decisions=[gen_from("g1", "smaller_chunks")]), BUDGET, RULES)
    assert d.direction == "fewer_output_warps"  # not cap_registers, the skill's first
    # a seed that names no kernel: unchanged
    assert decide(_kernel_state("_wy_o_kernel", kernels={}), BUDGET, RULES).direction == "cap_registers"


def test_focus_on_kernel_rules():
    from kernelopt.controller.directions import direction_kernels, focus_on_kernel

    names = KERNEL_NAMES
    assert focus_on_kernel(["cap_registers"], names, KERNELS, None) == (["cap_registers"], {})
    got, detail = focus_on_kernel(["cap_registers", "smaller_chunks"], names, KERNELS, "_h_kernel")
    assert got == ["smaller_chunks", "fewer_walk_warps"] and detail["on_dominant_kernel"] == ["fewer_walk_warps"]
    got, detail = focus_on_kernel(["cap_registers"], names, KERNELS, "_other_kernel")  # no direction names it
    assert got == ["cap_registers"] and detail["kernel_rule"] == "no direction names the dominant kernel"
    assert focus_on_kernel([], names, KERNELS, "_o_kernel")[0] == ["fewer_output_warps"]
    # the run parameter as logged (a dict) or as text (JSON)
    import json

    for value in (KERNELS, json.dumps(KERNELS)):
        (g,) = group_by_solution([rec("g9", "z", "gate", 1.0, params={"direction_kernels": value})])
        assert direction_kernels(g) == KERNELS
    (g,) = group_by_solution([rec("g8", "y", "gate", 1.0, params={})])
    assert direction_kernels(g) == {}


def test_the_band_direction_rule_narrows_to_the_dominant_kernel_too():
    """The v2-lite path (``choose_band_direction``, used when no parent ranks) applies the same focus."""
    from kernelopt.controller.evidence import choose_band_direction

    st = _kernel_state("_wy_o_kernel")
    parent = next(g for g in group_by_solution(st.candidates) if g.gate is not None)
    direction, band, rows = choose_band_direction(parent, st.analysis, RULES, [], [])
    ev = next(e for e in rows if e.kind == "direction")
    assert band == "all" and direction == "smaller_chunks"
    assert ev.detail["preferred"] == ["smaller_chunks", "fewer_output_warps"]
    assert ev.detail["on_dominant_kernel"] == ["fewer_output_warps"]
    st = _kernel_state(None)
    direction, _, _ = choose_band_direction(parent, st.analysis, RULES, [], [])
    assert direction == "cap_registers"
