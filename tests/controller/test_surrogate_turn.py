"""The controller's ``surrogate`` rule (kernelopt.controller.surrogate_turn): which step-10 rounds go to the
generator's GP surrogate (direction ``model_guided``), from which parent, with which evidence row."""

from __future__ import annotations

import pytest
from ctl_states import rec
from test_search import BUDGET, DIRS, RULES, _ev, _state, gen_from

from kernelopt.controller import Rules, decide
from kernelopt.controller.selection import group_by_solution
from kernelopt.controller.surrogate_turn import round_wins, surrogate_turn
from kernelopt.data.records import MODEL_GUIDED

#: the walk's first round (from g1 along 'wide') and its candidate: it lost to g1 on the gate
LOST = [rec("g2", "b", "gate", 1.5, parent="g1", direction="wide", params=DIRS)]
WON = [rec("g2", "b", "gate", 0.5, parent="g1", direction="wide", params=DIRS)]


def _rules(**kw) -> Rules:
    return RULES.model_copy(update={"surrogate": "rbf", **kw})


def test_off_by_default_and_never_the_first_round_after_the_baseline():
    assert Rules().surrogate is None
    d = decide(_state(*LOST, decisions=[gen_from("g1", "wide")]), BUDGET, RULES)
    assert d.direction != MODEL_GUIDED
    d = decide(_state(), BUDGET, _rules(surrogate_turns="always"))
    assert d.direction == "wide"  # one measurement is nothing to fit: the evidence's round first


@pytest.mark.parametrize("turns", ["alternate", "always"])
def test_after_an_evidence_round_the_surrogate_gets_one_candidate_from_the_best(turns):
    s = _state(*LOST, decisions=[gen_from("g1", "wide")])
    d = decide(s, BUDGET, _rules(surrogate_turns=turns, surrogate_ls=0.8, surrogate_kappa=2.0))
    assert d.action == "generate" and d.direction == MODEL_GUIDED and d.count == 1 and d.band is None
    assert d.parent_run_id == "g1"  # the best tunable solution, not the loser
    row = _ev(d, "surrogate")
    assert {k: row.detail[k] for k in ("name", "ls", "kappa", "turns", "measured_solutions")} == {
        "name": "rbf", "ls": 0.8, "kappa": 2.0, "turns": turns, "measured_solutions": 2}
    assert turns in row.detail["why"]
    assert d.workloads == s.gate_workloads and "model_guided" in d.reason


def test_alternate_hands_back_to_the_evidence_walk_always_does_not():
    s = _state(*LOST, decisions=[gen_from("g1", "wide"), gen_from("g1", MODEL_GUIDED)])
    assert decide(s, BUDGET, _rules(surrogate_turns="alternate")).direction not in (MODEL_GUIDED, None)
    assert decide(s, BUDGET, _rules(surrogate_turns="always")).direction == MODEL_GUIDED


def test_on_loss_only_after_an_evidence_round_that_lost_to_its_parent():
    lost = _state(*LOST, decisions=[gen_from("g1", "wide")])
    won = _state(*WON, decisions=[gen_from("g1", "wide")])
    assert decide(lost, BUDGET, _rules(surrogate_turns="on_loss")).direction == MODEL_GUIDED
    assert decide(won, BUDGET, _rules(surrogate_turns="on_loss")).direction != MODEL_GUIDED
    groups = group_by_solution(lost.candidates)
    why = surrogate_turn(_rules(surrogate_turns="on_loss"), lost.decisions, groups)
    assert why is not None and "'wide' from sol_a" in why and "lost" in why


def _mg(run_id: str, sol: str, mean: float):
    """A candidate of a surrogate round from g1 (the best)."""
    return rec(run_id, sol, "gate", mean, parent="g1", direction=MODEL_GUIDED, params=DIRS)


def test_race_hands_the_round_to_whichever_found_new_bests_more_often():
    race = _rules(surrogate_turns="race")
    # the walk's round won: 2/3 against the surrogate's untried 1/2 - the walk goes on
    assert decide(_state(*WON, decisions=[gen_from("g1", "wide")]), BUDGET, race).direction != MODEL_GUIDED
    # it lost: 1/3 against 1/2 - the surrogate's turn, with its tally in the evidence
    d = decide(_state(*LOST, decisions=[gen_from("g1", "wide")]), BUDGET, race)
    assert d.direction == MODEL_GUIDED and d.parent_run_id == "g1"
    why = _ev(d, "surrogate").detail["why"]
    assert "0 of 0" in why and "0 of 1" in why and "race" in why
    # the surrogate's round found a new best (2/3): it keeps the turn
    walk_lost_sur_won = [gen_from("g1", "wide"), gen_from("g1", MODEL_GUIDED)]
    s = _state(*LOST, _mg("g3", "c", 0.4), decisions=walk_lost_sur_won)  # (decide would sweep g3 first)
    why = surrogate_turn(race, s.decisions, group_by_solution(s.candidates))
    assert why is not None and "1 of 1" in why
    # two surrogate rounds that lost (1/4) against the walk's lost one (1/3): back to the walk
    s = _state(*LOST, _mg("g3", "c", 1.4), _mg("g4", "d", 1.3),
               decisions=[gen_from("g1", "wide"), gen_from("g1", MODEL_GUIDED), gen_from("g1", MODEL_GUIDED)])
    assert decide(s, BUDGET, race).direction not in (MODEL_GUIDED, None)


def test_round_wins_takes_each_rounds_candidates_in_gating_order():
    """Rounds with the same parent and direction (the surrogate's, from the best) share one queue of candidates, each
    taking as many as it asked for; a round that gated nothing is not judged."""
    s = _state(*LOST, _mg("g3", "c", 1.4), _mg("g4", "d", 0.3))
    rounds = [gen_from("g1", "wide"), gen_from("g1", MODEL_GUIDED), gen_from("g1", MODEL_GUIDED),
              gen_from("g1", MODEL_GUIDED)]
    assert round_wins(rounds, group_by_solution(s.candidates)) == [False, False, True, None]


def test_bad_rule_values_are_refused():
    with pytest.raises(ValueError):
        Rules(surrogate="matern")
    with pytest.raises(ValueError):
        Rules(surrogate_ls=0)
    with pytest.raises(ValueError):
        Rules(surrogate_turns="sometimes")


def test_neighbours_turns_keep_the_evidence_direction_and_add_the_row():
    s = _state(*LOST, decisions=[gen_from("g1", "wide")])
    d = decide(s, BUDGET, _rules(surrogate_turns="neighbours"))
    plain = decide(s, BUDGET, RULES)
    assert d.direction == plain.direction != MODEL_GUIDED and d.parent_run_id == plain.parent_run_id
    row = _ev(d, "surrogate")
    assert row.detail["neighbours"] is True and row.detail["name"] == "rbf"
    assert all(e.kind != "surrogate" for e in plain.evidence)
    assert _ev(decide(s, BUDGET, _rules(surrogate_turns="always")), "surrogate").detail["neighbours"] is False
