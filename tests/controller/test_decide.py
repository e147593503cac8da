"""decide(): every action and stop rule on hand-built campaign states."""

from __future__ import annotations

import pytest
from ctl_states import ALL, GATE, baseline, gen, promote, rec, state

from kernelopt.controller import Budget, Rules, decide
from kernelopt.data.records import ChampionInfo

DIRS = {"directions": ["more_rows", "fewer_rows", "narrow"]}
RULES = Rules()
BUDGET = Budget(max_candidates=20, max_rounds=5, patience=2, candidates_per_round=3, wall_clock_s=100)


def kinds(decision) -> set[str]:
    return {e.kind for e in decision.evidence}


def test_nothing_evaluated_gives_baseline_generation():
    d = decide(state(), BUDGET, RULES)
    assert d.action == "generate" and d.direction == "baseline" and d.parent_run_id is None
    assert d.count == BUDGET.max_candidates and d.workloads == GATE
    assert "noise_floor" in kinds(d) and d.reason


def test_baseline_that_produced_nothing_twice_stops():
    assert decide(state(decisions=[baseline()]), BUDGET, RULES).action == "generate"
    d = decide(state(decisions=[baseline(), baseline()]), BUDGET, RULES)
    assert d.action == "stop" and "baseline" in d.reason


def test_gate_passers_are_swept_best_first_up_to_finalists():
    s = state(rec("g1", "a", "gate", 3.0), rec("g2", "b", "gate", 1.0), rec("g3", "c", "gate", 2.0),
              rec("g4", "d", "gate", None, passed=1), decisions=[baseline()])
    d = decide(s, BUDGET, RULES)
    assert d.action == "sweep" and d.candidate_run_ids == ["g2", "g3"] and d.workloads == ALL
    assert [e.subject for e in d.evidence if e.kind == "latency"] == ["g2", "g3"]


def test_sweep_only_gate_passers_beating_the_best_swept_gate_latency():
    base = [rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0, p95=2.2),
            rec("r1", "a", "repeat", 2.0, p95=2.2)]
    champion = ChampionInfo(run_id="s1", mean_latency_ms=2.0)
    slower = state(*base, rec("g2", "b", "gate", 1.1), decisions=[baseline(), gen()], champion=champion)
    assert decide(slower, BUDGET, RULES).action != "sweep"
    faster = state(*base, rec("g2", "b", "gate", 0.9), decisions=[baseline(), gen()], champion=champion)
    d = decide(faster, BUDGET, RULES)
    assert d.action == "sweep" and d.candidate_run_ids == ["g2"]
    # the bar is the swept solution's gate mean (1.0), not its sweep's (2.0): said so ('best swept latency' read as 2.0)
    assert "beat the bar (a swept solution's mean on the gate's workloads: 1 ms)" in d.reason


def test_a_swept_candidate_that_failed_does_not_set_the_bar():
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", None, passed=3),
              rec("g2", "b", "gate", 1.5), decisions=[baseline()])
    d = decide(s, BUDGET, RULES)
    assert d.action == "sweep" and d.candidate_run_ids == ["g2"]


def test_swept_finalists_within_noise_of_the_best_are_repeated():
    s = state(rec("g1", "a", "gate", 1.0), rec("g2", "b", "gate", 1.1), rec("g3", "c", "gate", 1.2),
              rec("s1", "a", "sweep", 2.0), rec("s2", "b", "sweep", 2.03), rec("s3", "c", "sweep", 2.5),
              decisions=[baseline()])
    d = decide(s, BUDGET, Rules(finalists=3))
    assert d.action == "repeat" and d.candidate_run_ids == ["g1", "g2"]  # c is 25 % slower: out of reach


def test_no_repeat_for_candidates_slower_than_the_champion():
    champion = ChampionInfo(run_id="old", mean_latency_ms=1.5)
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), decisions=[baseline()], champion=champion)
    d = decide(s, BUDGET, RULES)
    assert d.action == "generate" and d.parent_run_id == "g1"


def test_repeats_counts_the_sweep_as_the_first_full_run():
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), decisions=[baseline()])
    assert decide(s, BUDGET, Rules(repeats=1)).action == "promote"
    assert decide(s, BUDGET, Rules(repeats=2)).action == "repeat"
    s3 = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), rec("r1", "a", "repeat", 2.0),
               decisions=[baseline()])
    assert decide(s3, BUDGET, Rules(repeats=3)).action == "repeat"


def test_promote_without_champion_names_every_full_run():
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), rec("r1", "a", "repeat", 2.02),
              decisions=[baseline()])
    d = decide(s, BUDGET, RULES)
    assert d.action == "promote" and d.candidate_run_ids == ["s1", "r1"]
    assert {"repeats", "pass_count", "latency", "noise_floor"} <= kinds(d)


def test_promote_needs_to_beat_the_champion_beyond_the_noise_floor():
    champion = ChampionInfo(run_id="old", mean_latency_ms=2.0)
    quiet = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 1.94), rec("r1", "a", "repeat", 1.94),
                  decisions=[baseline()], champion=champion)
    assert decide(quiet, BUDGET, RULES).action == "promote"  # 3 % gain, ~0 noise -> 1 % floor
    noisy = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 1.86), rec("r1", "a", "repeat", 2.02),
                  decisions=[baseline()], champion=champion)  # same 3 % gain, ~5.8 % noise
    d = decide(noisy, BUDGET, RULES)
    assert d.action == "generate"
    nf = next(e for e in d.evidence if e.kind == "noise_floor")
    assert nf.detail["source"] == "repeats" and nf.value == pytest.approx(0.0583, abs=1e-3)


def test_champion_is_not_promoted_again():
    champion = ChampionInfo(run_id="s1", mean_latency_ms=2.0)
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), rec("r1", "a", "repeat", 2.0),
              decisions=[baseline(), promote()], champion=champion)
    d = decide(s, BUDGET, RULES)
    assert d.action == "generate" and d.parent_run_id == "g1"


def test_failed_full_run_blocks_promotion():
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), rec("r1", "a", "repeat", None, passed=4),
              decisions=[baseline()])
    d = decide(s, BUDGET, RULES)
    assert d.action == "generate"  # parent falls back to its gate result
    assert d.parent_run_id == "g1"


def test_wall_clock_is_a_hard_stop_even_with_work_pending():
    s = state(rec("g1", "a", "gate", 1.0), decisions=[baseline()], elapsed=100.0)
    d = decide(s, BUDGET, RULES)
    assert d.action == "stop" and "wall-clock" in d.reason


def test_wall_clock_without_champion_promotes_the_best_full_run_provisionally():
    # the GDN prefill campaign of call AG (H200, 2026-12-01) stopped on its clock with one swept finalist and no
    # champion: nothing to export. Now the best fully passed solution is registered, marked provisional.
    s = state(rec("g1", "a", "gate", 1.0), rec("g2", "b", "gate", 1.5), rec("s1", "a", "sweep", 2.0),
              rec("s2", "b", "sweep", 2.6), decisions=[baseline()], elapsed=100.0)
    d = decide(s, BUDGET, RULES)
    assert d.action == "promote" and d.candidate_run_ids == ["s1"] and "provisionally" in d.reason
    prov = next(e for e in d.evidence if e.kind == "provisional")
    assert prov.subject == "g1" and prov.value == 1 and prov.detail["required_repeats"] == RULES.repeats
    # with a champion registered, or no fully passed run, the clock is a plain stop
    champ = s.model_copy(update={"champion": ChampionInfo(run_id="old", mean_latency_ms=9.0)})
    assert decide(champ, BUDGET, RULES).action == "stop"
    failed = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", None, passed=3), decisions=[baseline()],
                   elapsed=100.0)
    assert decide(failed, BUDGET, RULES).action == "stop"


def test_wall_clock_after_the_repeats_promotes_as_a_regular_champion():
    # the MoE campaign of call AH (H200, 2026-12-01): the finalist's repeat ended just past the clock, so it had
    # the full runs the rule asks, yet was promoted "provisionally (2 full runs < 2 required)". A registry step
    # costs no evaluation: a finalist that clears the promotion gate is promoted as a regular champion.
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), rec("r1", "a", "repeat", 2.02),
              decisions=[baseline()], elapsed=100.0)
    d = decide(s, BUDGET, RULES)
    assert d.action == "promote" and sorted(d.candidate_run_ids) == ["r1", "s1"]
    assert "wall-clock" in d.reason and "provisional" not in d.reason
    assert "provisional" not in kinds(d)
    # a champion already registered: a challenger with its repeats done is still promoted at the clock stop
    beaten = s.model_copy(update={"champion": ChampionInfo(run_id="old", mean_latency_ms=9.0)})
    assert decide(beaten, BUDGET, RULES).action == "promote"
    # the champion itself is not promoted again: a plain stop
    kept = s.model_copy(update={"champion": ChampionInfo(run_id="s1", mean_latency_ms=2.01)})
    assert decide(kept, BUDGET, RULES).action == "stop"


def test_candidate_budget_stops_generation_but_pending_work_finishes():
    b = Budget(max_candidates=2, max_rounds=5, patience=5)
    s = state(rec("g1", "a", "gate", 1.0), rec("g2", "b", "gate", 2.0), decisions=[baseline()])
    assert decide(s, b, RULES).action == "sweep"
    done = state(rec("g1", "a", "gate", 1.0), rec("g2", "b", "gate", 2.0), rec("s1", "a", "sweep", 2.0),
                 rec("s2", "b", "sweep", 9.0), rec("r1", "a", "repeat", 2.0), decisions=[baseline(), promote()],
                 champion=ChampionInfo(run_id="s1", mean_latency_ms=2.0))
    d = decide(done, b, RULES)
    assert d.action == "stop" and "candidate budget" in d.reason


def _settled(*decisions, champion=True):
    return state(rec("g1", "a", "gate", 1.0, params=DIRS), rec("s1", "a", "sweep", 2.0),
                 rec("r1", "a", "repeat", 2.0), decisions=list(decisions),
                 champion=ChampionInfo(run_id="s1", mean_latency_ms=2.0) if champion else None)


def test_round_budget_stops():
    b = Budget(max_candidates=50, max_rounds=2, patience=10)
    assert decide(_settled(baseline(), promote(), gen()), b, RULES).action == "generate"
    d = decide(_settled(baseline(), promote(), gen(), gen()), b, RULES)
    assert d.action == "stop" and "round budget" in d.reason


def test_patience_counts_rounds_since_the_last_promotion():
    b = Budget(max_candidates=50, max_rounds=10, patience=2)
    d = decide(_settled(baseline(), promote(), gen(), gen()), b, RULES)
    assert d.action == "stop" and "patience" in d.reason
    assert decide(_settled(baseline(), gen(), gen(), promote(), gen()), b, RULES).action == "generate"


def test_generate_walks_directions_round_robin_then_cycles():
    b = Budget(max_candidates=50, max_rounds=10, patience=10, candidates_per_round=3)
    d = decide(_settled(baseline(), promote()), b, RULES)
    assert d.action == "generate" and d.parent_run_id == "g1" and d.direction == "more_rows" and d.count == 3
    ev = next(e for e in d.evidence if e.kind == "direction")
    assert ev.detail["available"] == DIRS["directions"]
    d = decide(_settled(baseline(), promote(), gen("more_rows")), b, RULES)
    assert d.direction == "fewer_rows"
    d = decide(_settled(baseline(), promote(), gen("more_rows"), gen("narrow")), b, RULES)
    assert d.direction == "fewer_rows"
    d = decide(_settled(baseline(), promote(), gen("more_rows"), gen("fewer_rows"), gen("narrow")), b, RULES)
    assert d.direction == "more_rows"
    other_parent = decide(_settled(baseline(), promote(), gen("more_rows", parent="zz")), b, RULES)
    assert other_parent.direction == "more_rows"


def test_generate_from_the_best_full_result_with_capped_count():
    b = Budget(max_candidates=4, max_rounds=10, patience=10, candidates_per_round=3)
    s = state(rec("g1", "a", "gate", 1.0, params=DIRS), rec("g2", "b", "gate", 0.5, params=DIRS),
              rec("s1", "a", "sweep", 2.0), rec("r1", "a", "repeat", 2.0),
              rec("s2", "b", "sweep", 1.0), rec("r2", "b", "repeat", 1.0),
              decisions=[baseline(), promote()], champion=ChampionInfo(run_id="s2", mean_latency_ms=1.0))
    d = decide(s, b, RULES)
    assert d.action == "generate" and d.parent_run_id == "g2" and d.count == 2


def test_rules_directions_are_the_fallback_and_none_is_allowed():
    b = Budget(max_candidates=50, max_rounds=10, patience=10)
    s = state(rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 2.0), rec("r1", "a", "repeat", 2.0),
              decisions=[baseline(), promote()], champion=ChampionInfo(run_id="s1", mean_latency_ms=2.0))
    assert decide(s, b, RULES).direction is None
    assert decide(s, b, Rules(directions=["x", "y"])).direction == "x"


def test_no_gate_passer_stops():
    s = state(rec("g1", "a", "gate", None, passed=0), decisions=[baseline()])
    d = decide(s, BUDGET, RULES)
    assert d.action == "stop" and "passed the gate" in d.reason


def test_a_failed_baseline_is_repaired_from_along_its_directions_before_anything_passed():
    g1 = rec("g1", "a", "gate", None, passed=0, params=DIRS)
    b = Budget(max_candidates=20, max_rounds=10, patience=10, candidates_per_round=3, wall_clock_s=100)
    d = decide(state(g1, decisions=[baseline()]), b, RULES)
    assert d.action == "generate" and d.parent_run_id == "g1" and d.direction == "more_rows"
    assert d.count == b.candidates_per_round and "(repair)" in d.reason and "FAILED, 0/3" in d.reason
    assert {"failure", "direction"} <= kinds(d)
    # the next repair goes on from the latest failure, along its least-tried direction
    g2 = rec("g2", "b", "gate", None, passed=1, parent="g1", direction="more_rows", params=DIRS)
    d2 = decide(state(g1, g2, decisions=[baseline(), d]), b, RULES)
    assert d2.parent_run_id == "g2" and d2.direction == "more_rows"
    d3 = decide(state(g1, g2, decisions=[baseline(), d, d2]), b, RULES)
    assert d3.parent_run_id == "g2" and d3.direction == "fewer_rows"
    # once something passes, generation is from it as usual
    g3 = rec("g3", "c", "gate", 1.0, parent="g2", direction="more_rows", params=DIRS)
    assert decide(state(g1, g2, g3, decisions=[baseline(), d, d2]), b, RULES).action == "sweep"
    # the caps still stop it
    few = Budget(max_candidates=2, max_rounds=5, patience=2, candidates_per_round=3, wall_clock_s=100)
    assert decide(state(g1, g2, decisions=[baseline(), d]), few, RULES).action == "stop"


def test_incomplete_runs_are_ignored():
    r = rec("g1", "a", "gate", 1.0).model_copy(update={"status": "RUNNING"})
    d = decide(state(r), BUDGET, RULES)
    assert d.action == "generate" and d.direction == "baseline"


def test_a_probe_counts_as_its_share_of_a_round():
    """One-candidate probes spend a third of a 3-candidate round of ``max_rounds`` and ``patience``: the
    same search effort bounds a campaign whether the controller probes or asks for full rounds."""
    b = Budget(max_candidates=50, max_rounds=10, patience=1, candidates_per_round=3)
    probe = gen().model_copy(update={"count": 1})
    assert decide(_settled(baseline(), promote(), probe, probe), b, RULES).action == "generate"
    d = decide(_settled(baseline(), promote(), probe, probe, probe), b, RULES)
    assert d.action == "stop" and "patience" in d.reason
    full = gen().model_copy(update={"count": 3})
    assert decide(_settled(baseline(), promote(), full), b, RULES).action == "stop"


def test_the_champions_solution_measured_again_is_not_promoted_again():
    """A resumed campaign's new sweep and repeat of the champion's own solution (other run ids, same hash) are the
    champion: no new registry version of the same kernel (the audit's version 2 -> 3, one solution); a provisional
    champion's solution may still be promoted with the full runs it lacked."""
    runs = (rec("g1", "a", "gate", 1.0), rec("s1", "a", "sweep", 1.5), rec("r1", "a", "repeat", 1.5))
    same = ChampionInfo(run_id="older_sweep", mean_latency_ms=2.0, solution_hash="hash_a")
    assert decide(state(*runs, decisions=[baseline()], champion=same), BUDGET, RULES).action != "promote"
    other = ChampionInfo(run_id="older_sweep", mean_latency_ms=2.0, solution_hash="hash_z")
    assert decide(state(*runs, decisions=[baseline()], champion=other), BUDGET, RULES).action == "promote"
    cut = same.model_copy(update={"provisional": "1 full run(s) < 2 required"})
    assert decide(state(*runs, decisions=[baseline()], champion=cut), BUDGET, RULES).action == "promote"


def test_the_round_stops_say_how_rounds_are_counted():
    """The decisions number generate steps ("round 9"), the stop rules count rounds of candidates_per_round
    candidates: the stop line says so."""
    from ctl_states import gen as generation

    probes = [generation() for _ in range(6)]  # six generate steps
    d = decide(state(rec("g1", "a", "gate", None, passed=1), decisions=[baseline(), *probes]), BUDGET, RULES)
    assert d.action == "stop" and "a round is 3 candidates: a probe of fewer counts that fraction of one" in d.reason
