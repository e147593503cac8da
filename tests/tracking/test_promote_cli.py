"""`kernelopt promote` judges a run by the gates of the campaign that measured it (real MLflow on sqlite)."""

from __future__ import annotations

from tracking_helpers import DEFINITION, make_result, make_solution, params

from kernelopt.cli.promote import promote_run
from kernelopt.controller import Rules


def _swept_once(store, rules: Rules | None) -> str:
    camp = store.start_campaign(DEFINITION, {"rules": rules.model_dump()} if rules else {}, {})
    sol = make_solution("k1")
    return store.log_candidate(camp, sol, make_result(sol, [1.0, 1.0]), stage="sweep", params=params())


def test_promote_takes_the_campaigns_repeats_not_the_defaults(store, capsys) -> None:
    """A campaign run with `controller.repeats=1` promotes after one sweep; `kernelopt promote` of such a run
    failed 'repeats: 1 required 2' under the default rules."""
    run = _swept_once(store, Rules(repeats=1))
    assert promote_run(run, tracking_uri=store.tracking_uri) == 0
    out = capsys.readouterr().out
    assert "'s rules (repeats 1, min_improvement" in out
    assert store.get_champion(DEFINITION).run_id == run


def test_promote_falls_back_on_the_default_rules_and_says_so(store, capsys) -> None:
    run = _swept_once(store, None)
    assert promote_run(run, tracking_uri=store.tracking_uri) == 1  # one full run of the two the defaults want
    out = capsys.readouterr().out
    assert "gates: the default rules (campaign" in out and "fail repeats: 1 (required 2)" in out


def test_promote_of_a_gated_only_solution_says_it_needs_its_sweep(store, capsys) -> None:
    """The gates read a full sweep's figures: a gate-only run printed 'latency: None ... gain None'."""
    camp = store.start_campaign(DEFINITION, {"rules": Rules(repeats=1).model_dump()}, {})
    sol = make_solution("k2")
    run = store.log_candidate(camp, sol, make_result(sol, [1.0, 1.0]), stage="gate", params=params())
    assert promote_run(run, tracking_uri=store.tracking_uri) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert f"not promoted: run {run}'s solution was only gated (on 2 workload(s)); promotion needs its full sweep" in out
    assert "None" not in out and store.get_champion(DEFINITION) is None
