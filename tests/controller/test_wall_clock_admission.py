"""Wall-clock admission: evaluations priced from the campaign's recorded times; what cannot finish is not started."""

from __future__ import annotations

from ctl_states import ALL, GATE, baseline, rec, state

from kernelopt.controller import Budget, Rules, decide
from kernelopt.controller.timing import admit, estimate
from kernelopt.data.records import ChampionInfo

RULES = Rules()
BUDGET = Budget(max_candidates=20, max_rounds=5, patience=2, candidates_per_round=3, wall_clock_s=120)


def timed(run_id: str, sol: str, stage: str, mean: float | None, seconds: float, **kw):  # type: ignore[no-untyped-def]
    return rec(run_id, sol, stage, mean, **kw).model_copy(update={"eval_wall_s": seconds})


def test_estimate_prices_full_runs_from_full_runs_then_from_gates_per_workload():
    n_gate, n_all = len(GATE), len(ALL)
    gates = [timed("g1", "a", "gate", 1.0, 3.0 * n_gate), timed("g2", "b", "gate", 1.2, 5.0 * n_gate)]
    # no full run yet: the gates' median seconds per workload (4 s) times the workloads of the action
    cost, basis = estimate(gates, runs=2, workloads=n_all, full=True)
    assert cost == 2 * 4.0 * n_all and "gate run" in basis
    # with full runs, they price full actions; gate rounds are still priced from gates
    swept = gates + [timed("s1", "a", "sweep", 2.0, 1.0 * n_all)]
    assert estimate(swept, runs=1, workloads=n_all, full=True)[0] == n_all * 1.0
    assert estimate(swept, runs=3, workloads=n_gate, full=False)[0] == 3 * 4.0 * n_gate
    # runs without a recorded time (older stores) price nothing
    assert estimate([rec("g1", "a", "gate", 1.0)], runs=1, workloads=n_all, full=True) is None


def test_admit_counts_the_runs_that_fit():
    gates = [timed("g1", "a", "gate", 1.0, 10.0 * len(GATE))]  # 10 s per workload
    each = 10.0 * len(ALL)
    assert admit(gates, runs=2, workloads=len(ALL), full=True, left_s=2 * each + 1, action="sweep",
                 subject="c") == (2, None)
    fit, row = admit(gates, runs=2, workloads=len(ALL), full=True, left_s=each + 1, action="sweep", subject="c")
    assert fit == 1 and row.kind == "time" and row.detail["per_run_s"] == each and row.detail["fit"] == 1
    fit, row = admit(gates, runs=2, workloads=len(ALL), full=True, left_s=each - 1, action="sweep", subject="c")
    assert fit == 0 and row.value == 2 * each


def test_a_sweep_that_cannot_finish_is_cut_to_what_fits_then_not_started():
    # the GDN prefill campaigns of calls AH / AJ (H200, 2026-12-01): the sweeps and repeat started late and ran
    # 80+ s past the clock. Gates took 10 s per workload here, so one full run takes 10 s x len(ALL).
    each = 10.0 * len(ALL)
    gates = [timed("g1", "a", "gate", 1.0, 10.0 * len(GATE)), timed("g2", "b", "gate", 1.1, 10.0 * len(GATE))]
    roomy = decide(state(*gates, decisions=[baseline()], elapsed=0.0), BUDGET.model_copy(
        update={"wall_clock_s": 3 * each}), RULES)
    assert roomy.action == "sweep" and roomy.candidate_run_ids == ["g1", "g2"]
    assert "time" not in {e.kind for e in roomy.evidence}
    tight = decide(state(*gates, decisions=[baseline()], elapsed=BUDGET.wall_clock_s - each - 5), BUDGET, RULES)
    assert tight.action == "sweep" and tight.candidate_run_ids == ["g1"] and "1 of 2" in tight.reason
    assert [e for e in tight.evidence if e.kind == "time"][0].detail["fit"] == 1
    late = decide(state(*gates, decisions=[baseline()], elapsed=BUDGET.wall_clock_s - each + 5), BUDGET, RULES)
    assert late.action == "stop" and "would take" in late.reason
    assert {e.kind for e in late.evidence} >= {"time", "noise_floor", "counts"}


def test_a_repeat_that_cannot_finish_ends_the_campaign_with_a_provisional_champion():
    each = 10.0 * len(ALL)
    runs = [timed("g1", "a", "gate", 1.0, 10.0 * len(GATE)), timed("s1", "a", "sweep", 2.0, each)]
    d = decide(state(*runs, decisions=[baseline()], elapsed=BUDGET.wall_clock_s - each / 2), BUDGET, RULES)
    assert d.action == "promote" and d.candidate_run_ids == ["s1"] and "would take" in d.reason
    assert {"time", "provisional"} <= {e.kind for e in d.evidence}
    # with a champion registered the clock's end is a plain stop; with time enough the repeat runs
    champ = ChampionInfo(run_id="old", mean_latency_ms=9.0)
    s = state(*runs, decisions=[baseline()], elapsed=BUDGET.wall_clock_s - each / 2, champion=champ)
    assert decide(s, BUDGET, RULES).action == "stop"
    assert decide(state(*runs, decisions=[baseline()], elapsed=0.0), BUDGET, RULES).action == "repeat"


def test_a_gate_round_is_priced_by_its_own_workloads_when_their_seconds_are_on_record():
    # call AT (H200, 2026-12-01): a GDN prefill gate on two 3,999-8,192-token workloads ran 80+ s past the clock,
    # admitted at the median gate workload's ~3 s; each workload's harness seconds now price the round.
    g1 = timed("g1", "a", "gate", 1.0, 45.0, n=2).model_copy(update={"workload_wall_s": {"w-small": 2.0,
                                                                                         "w-large": 40.0}})
    g2 = timed("g2", "b", "gate", 1.1, 4.0, n=1).model_copy(update={"workload_wall_s": {"w-small": 3.0}})
    # build time outside the workloads: median(45 - 42, 4 - 3) = 2 s; w-large costs 40 s, a workload never run the
    # median known cost (3 and 40 -> 21.5 s)
    cost, basis = estimate([g1, g2], runs=1, workloads=2, full=False, workload_ids=["w-large", "w-4"])
    assert cost == 2.0 + 40.0 + 21.5 and "most harness seconds" in basis
    assert estimate([g1, g2], runs=2, workloads=1, full=False, workload_ids=["w-small"])[0] == 2 * (2.0 + 3.0)
    # the per-workload median of the runs (median(22.5, 4) = 13.25 s) would have admitted the long gate in 30 s
    assert estimate([g1, g2], runs=1, workloads=2, full=False)[0] == 2 * 13.25
    fit, row = admit([g1, g2], runs=1, workloads=2, full=False, left_s=30.0, action="generate", subject="c",
                     workload_ids=["w-large", "w-4"])
    assert fit == 0 and row.value == 63.5
    assert admit([g1, g2], runs=1, workloads=1, full=False, left_s=30.0, action="generate", subject="c",
                  workload_ids=["w-small"]) == (1, None)
    # full runs on record price a full run as before (the same workloads each time)
    s1 = timed("s1", "a", "sweep", 1.0, 10.0).model_copy(update={"workload_wall_s": {u: 99.0 for u in ALL}})
    assert estimate([g1, g2, s1], runs=1, workloads=len(ALL), full=True, workload_ids=ALL)[0] == 10.0
