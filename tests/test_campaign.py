"""The campaign loop end to end: real tracking store (sqlite), real CPU executor, real harness,
the real ``rmsnorm_h4096`` seed; plus kill-and-resume.

This file is also the script of the campaign subprocess that the kill test kills:
``python tests/test_campaign.py <store dir>``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

for _mod in ("kernelopt.tracking", "kernelopt.executor", "kernelopt.harness.evaluate"):
    pytest.importorskip(_mod)

from kernelopt.analysis.failures import load_failure_table
from kernelopt.campaign import CampaignConfig, run_campaign, split_plan
from kernelopt.controller import Budget, Rules
from kernelopt.data import CandidateRecord, EvaluationStatus, HarnessSettings
from kernelopt.executor import make_executor
from kernelopt.generators import GenerationContext, OfflineGenerator, kernelopt_extra, load_seeds
from kernelopt.operators import UnknownOperatorError, load_operator
from kernelopt.tracking import TrackingStore

OP = "rmsnorm_h4096"
HARNESS = HarnessSettings(warmup=0, iterations=2, trials=1, timer="cpu_wall", flush_l2=False,
                          time_reference=False, timeout_s=120)


def config(**kw) -> CampaignConfig:
    """Small campaign: the seed at its defaults + one round of 2 candidates, 2 workloads, gate of 1."""
    return CampaignConfig(
        operator=OP, harness=HARNESS,
        budget=Budget(max_candidates=4, max_rounds=1, patience=2, candidates_per_round=2, wall_clock_s=900),
        rules=Rules(gate_size=1, repeats=2), workload_limit=2, **kw)


def store_at(root: Path) -> TrackingStore:
    return TrackingStore(f"sqlite:///{root}/mlflow.db", str(root / "artifacts"))


def planned_gate_hashes() -> set[str]:
    """What the campaign must gate: the seed at its defaults, then round 1 from it along the first
    direction that moves from there (one seed, so the parent and direction do not depend on measured
    latencies)."""
    op = load_operator(OP)
    gen = OfflineGenerator(seed=0)
    (base,) = gen.propose(GenerationContext(definition=op.definition, operator=OP))
    (seed,) = load_seeds(OP)
    live = kernelopt_extra(base)["directions"]
    assert live and set(live) <= set(seed.direction_names)
    history = [CandidateRecord(run_id="x", name=base.name, solution_hash=base.hash(), stage="gate")]
    round1 = gen.propose(GenerationContext(definition=op.definition, operator=OP, parent=base,
                                           direction=live[0], count=2, history=history))
    assert len(round1) == 2
    return {base.hash()} | {s.hash() for s in round1}


def check_final_state(store: TrackingStore, run_id: str) -> None:
    """Invariants of a completed small campaign."""
    state = store.load_state(run_id)
    cands = state.candidates
    dup = [k for k, n in Counter((c.solution_hash, c.stage) for c in cands).items() if n > 1]
    assert not dup, f"duplicate evaluations: {dup}"
    assert {c.solution_hash for c in cands if c.stage == "gate"} == planned_gate_hashes()
    gens = [d for d in state.decisions if d.action == "generate" and d.direction != "baseline"]
    for c in cands:
        if c.stage != "gate":
            assert c.workload_count == 2, c
        elif c.parent_run_id is None:  # the baseline: the campaign's gate of one workload
            assert c.workload_count == 1, c
        else:  # a round: gated on its decision's workloads (a band round: the band's gate and the campaign's)
            (d,) = [d for d in gens if d.parent_run_id == c.parent_run_id and d.direction == c.direction]
            assert set(c.workload_wall_s) == set(d.workloads or state.gate_workloads), c
        assert c.eval_wall_s is not None and c.eval_wall_s > 0, c  # the controller prices evaluations with it
        assert len(c.workload_wall_s) == c.workload_count and min(c.workload_wall_s.values()) > 0, c  # and these
        if c.stage != "gate":
            assert c.params["source_run_id"] in {g.run_id for g in cands if g.solution_hash == c.solution_hash}
    assert state.decisions[0].action == "generate" and state.decisions[0].direction == "baseline"
    assert state.decisions[-1].action == "stop"
    assert all(d.reason and d.evidence for d in state.decisions)
    champ = state.champion
    assert champ is not None
    champ_run = next(c for c in cands if c.run_id == champ.run_id)
    assert champ_run.stage == "sweep" and champ_run.all_passed
    assert sum(c.solution_hash == champ_run.solution_hash and c.stage == "repeat" for c in cands) == 1


@pytest.mark.slow
def test_campaign_end_to_end_then_resume_redoes_nothing(tmp_path):
    store = store_at(tmp_path)
    events: list[str] = []
    with make_executor("cpu") as ex:
        out = run_campaign(config(), store=store, executor=ex, generator=OfflineGenerator(seed=0),
                           progress=lambda event, **info: events.append(event))
        assert out.stop_reason.startswith("round budget spent")
        assert out.champion is not None and out.promoted and out.champion.run_id == out.promoted[-1]
        assert out.gated == 3 and out.rounds == 1 and out.evaluations >= 5
        check_final_state(store, out.campaign_run_id)
        assert events[0] == "campaign_started" and events[-1] == "campaign_finished"
        assert {"decision", "proposed", "evaluating", "evaluated", "promoted"} <= set(events)
        before = len(store.load_state(out.campaign_run_id).candidates)

        again = run_campaign(config(resume=out.campaign_run_id), store=store, executor=ex,
                             generator=OfflineGenerator(seed=0))
    assert again.evaluations == 0 and again.campaign_run_id == out.campaign_run_id
    assert len(store.load_state(out.campaign_run_id).candidates) == before
    wrong = config(resume=out.campaign_run_id).model_copy(update={"operator": "fused_add_rmsnorm_h4096"})
    with pytest.raises(ValueError, match="is for 'rmsnorm_h4096'"):
        run_campaign(wrong, store=store, executor=None, generator=OfflineGenerator(seed=0))
    assert store.campaign_run(out.campaign_run_id).info.status == "FINISHED"  # left untouched


@pytest.mark.slow
def test_a_second_campaign_adopts_the_first_ones_runs_and_says_so_once_each(tmp_path, capsys):
    """A new campaign with the same settings reuses the earlier one's gate and sweep runs: one ``reused`` event
    per adopted run (its solution, the earlier run, the adopted copy), no ``skipped`` echo of it, nothing the first
    gated or swept evaluated again at that stage (a repeat is never adopted)."""
    store = store_at(tmp_path)
    events: list[tuple[str, dict]] = []
    with make_executor("cpu") as ex:
        first = run_campaign(config(), store=store, executor=ex, generator=OfflineGenerator(seed=0))
        kept = store.get_champion(OP)
        second = run_campaign(config(), store=store, executor=ex, generator=OfflineGenerator(seed=0),
                              progress=lambda event, **info: events.append((event, info)))
    assert second.campaign_run_id != first.campaign_run_id
    if kept.solution_hash not in {store.get_champion(OP).solution_hash}:  # only a faster solution moves it
        assert second.promoted
    else:  # the same kernel is not registered again as a new version
        assert store.get_champion(OP).version == kept.version
    earlier = {c.run_id: c for c in store.load_state(first.campaign_run_id).candidates}
    mine = {c.run_id: c for c in store.load_state(second.campaign_run_id).candidates}
    reused = [i for e, i in events if e == "reused"]
    assert {i["stage"] for i in reused} == {"gate", "sweep"}
    measured = {(c.name, c.stage) for c in earlier.values() if c.stage != "repeat"}
    assert len(reused) == sum((c.name, c.stage) in measured for c in mine.values())
    for i in reused:
        src, copy = earlier[i["source"]], mine[i["run_id"]]
        assert src.name == copy.name == i["solution"] and src.stage == copy.stage == i["stage"]
    assert not [e for e, _ in events if e in ("skipped", "duplicate")]
    # nothing the first campaign gated or swept is evaluated again at that stage (the second may go on to new
    # candidates: it no longer spends a repeat and a promotion on the champion's own solution)
    assert not [i for e, i in events if e == "evaluated" and (i["solution"], i["stage"]) in measured]
    # `kernelopt promote` of the champion: nothing to do (it used to gate the champion against itself and fail)
    from kernelopt.cli.promote import promote_run

    champ = store.get_champion(OP)
    capsys.readouterr()
    assert promote_run(champ.run_id, tracking_uri=store.tracking_uri) == 0
    assert f"{champ.run_id} is already the champion of {OP} (version {champ.version})" in capsys.readouterr().out
    # nor of another run of the champion's kernel (the controller's rule, `controller.is_champion`: by solution):
    # another full run of it: the other campaign's sweep (when the second campaign's timing promoted its own run of a
    # kernel, the first one's sweep; otherwise the second one's adopted copy), or, when the second campaign went on to
    # a new kernel and promoted that (CPU timing decides: CI of 2026-12-07), its repeat (a promotion needs
    # rules.repeats = 2 full runs)
    others = [c.run_id for c in (*mine.values(), *earlier.values())
              if c.solution_hash == champ.solution_hash and c.stage in ("sweep", "repeat") and c.run_id != champ.run_id]
    assert others, "the champion's kernel has one full run only: it was promoted without its repeat"

    def same_campaign(run_id: str) -> bool:
        return {run_id, champ.run_id} <= set(mine) or {run_id, champ.run_id} <= set(earlier)

    again = sorted(others, key=same_campaign)[0]  # another campaign's run first
    assert promote_run(again, tracking_uri=store.tracking_uri) == 0
    # a run of the champion's own campaign is in its group of runs: promote names the champion's run itself
    who = champ.run_id if same_campaign(again) else f"{again} (the solution of run {champ.run_id})"
    assert f"{who} is already the champion" in capsys.readouterr().out
    assert store.get_champion(OP).version == champ.version


@pytest.mark.slow
def test_proposals_beyond_the_rounds_count_are_said_not_dropped_silently(tmp_path):
    """A baseline round of one candidate (`controller.max_candidates=1`) with a `campaign.include` beside the
    seeds: the included point is gated (first: the user named it), and an ``over_count`` event names the seed left
    out (proposals beyond the count used to vanish; before that, the include came last and was the one cut)."""
    from kernelopt.cli.tasks import load_solution_arg

    seed_dir = Path(__file__).resolve().parents[1] / "operators" / OP / "solutions" / "seeds" / "rmsnorm_rowwise"
    point = load_solution_arg(f"{seed_dir}@num_warps=4,variant=two_pass,BLOCK_H=1024", None)
    events: list[tuple[str, dict]] = []
    cfg = config(include=[point]).model_copy(update={"budget": Budget(max_candidates=1, max_rounds=1, patience=2,
                                                                       candidates_per_round=1, wall_clock_s=900)})
    with make_executor("cpu") as ex:
        out = run_campaign(cfg, store=store_at(tmp_path), executor=ex, generator=OfflineGenerator(seed=0),
                           progress=lambda event, **info: events.append((event, info)))
    assert out.gated == 1
    (gated,) = [i for e, i in events if e == "evaluated" and i.get("stage") == "gate"]
    assert gated["solution"] == point.name
    (over,) = [i for e, i in events if e == "over_count"]
    assert over["count"] == 1 and point.name not in over["solutions"] and over["solutions"]


@pytest.mark.slow
def test_runs_adopted_from_an_earlier_campaign_count_towards_the_rounds_size(tmp_path):
    """A baseline round of 2 whose first include was gated by an earlier campaign (adopted, not evaluated again):
    the adopted run takes one of the round's 2 places (it used to take none, and the round gated 3: 'candidate
    budget spent (3 >= 2)' under a 2/2 bar)."""
    from kernelopt.cli.tasks import load_solution_arg

    seed_dir = Path(__file__).resolve().parents[1] / "operators" / OP / "solutions" / "seeds" / "rmsnorm_rowwise"
    a = load_solution_arg(f"{seed_dir}@num_warps=4,variant=two_pass,BLOCK_H=1024", None)
    b = load_solution_arg(f"{seed_dir}@num_warps=2,variant=two_pass,BLOCK_H=1024", None)
    budget = Budget(max_candidates=2, max_rounds=1, patience=2, candidates_per_round=1, wall_clock_s=900)
    store = store_at(tmp_path)
    events: list[tuple[str, dict]] = []
    with make_executor("cpu") as ex:
        run_campaign(config(include=[a]).model_copy(update={"budget": budget}), store=store, executor=ex,
                     generator=OfflineGenerator(seed=0))
        out = run_campaign(config(include=[a, b]).model_copy(update={"budget": budget}), store=store, executor=ex,
                           generator=OfflineGenerator(seed=0),
                           progress=lambda event, **info: events.append((event, info)))
    assert out.gated == 2
    assert [i["solution"] for e, i in events if e == "reused" and i["stage"] == "gate"] == [a.name]
    assert [i["solution"] for e, i in events if e == "evaluated" and i["stage"] == "gate"] == [b.name]
    (over,) = [i for e, i in events if e == "over_count"]
    assert a.name not in over["solutions"] and b.name not in over["solutions"] and over["solutions"]


@pytest.mark.slow
def test_clock_spent_before_the_repeat_leaves_a_provisional_champion(tmp_path, monkeypatch):
    """The campaign's clock runs out right after the first full sweep (the GDN prefill campaign of call AG on the
    H200): with no champion registered, that sweep is promoted, tagged provisional, and the campaign stops."""
    import kernelopt.tracking.state as state_mod

    real = state_mod.time.time
    late = type("LateClock", (), {"time": staticmethod(lambda: real() + 10_000)})

    def progress(event, **info):
        if event == "evaluated" and info.get("stage") == "sweep":
            monkeypatch.setattr(state_mod, "time", late)

    store = store_at(tmp_path)
    with make_executor("cpu") as ex:
        out = run_campaign(config(), store=store, executor=ex, generator=OfflineGenerator(seed=0), progress=progress)
    assert out.stop_reason.startswith("wall-clock budget spent")
    assert out.champion is not None and out.promoted == [out.champion.run_id]
    state = store.load_state(out.campaign_run_id)
    promote = [d for d in state.decisions if d.action == "promote"]
    assert len(promote) == 1 and "provisionally" in promote[0].reason
    assert not [c for c in state.candidates if c.stage == "repeat"]
    assert store.version_by_alias(OP).tags["provisional"] == "1 full run(s) < 2 required"
    assert store.get_champion(OP).provisional == "1 full run(s) < 2 required"


def test_bad_configuration_fails_before_anything_is_written(tmp_path):
    store = store_at(tmp_path)
    gen = OfflineGenerator(seed=0)
    with pytest.raises(UnknownOperatorError, match="known operators"):
        run_campaign(config().model_copy(update={"operator": "no_such_op"}), store=store, executor=None,
                     generator=gen)
    with pytest.raises(ValueError, match="is not a campaign run of the tracking store sqlite:"):
        run_campaign(config(resume="0123456789abcdef"), store=store, executor=None, generator=gen)
    with pytest.raises(ValueError, match="gate_workloads"):
        run_campaign(config(gate_workloads=["not-a-uuid"]), store=store, executor=None, generator=gen)
    with pytest.raises(ValueError, match="no workload UUID starts with"):
        run_campaign(config(workloads=["zzzz"]), store=store, executor=None, generator=gen)
    assert store.list_campaigns(OP) == []


@pytest.mark.parametrize("jobs,workloads,lanes,expected", [
    (5, 14, 1, (1, 1)),   # one CPU worker: one solution per batch, logged before the next starts
    (3, 14, 8, (2, 4)),   # 3 solutions on 8 GPUs: each split in 2 requests, all in one batch
    (1, 3, 8, (3, 2)),    # a lone sweep fans its workloads out
    (20, 14, 8, (1, 8)),  # many candidates: one request each, 8 at a time
    (0, 3, 8, (1, 1)),
])
def test_split_plan(jobs, workloads, lanes, expected):
    assert split_plan(jobs, workloads, lanes) == expected


def _wait_for_runs(store: TrackingStore, proc: subprocess.Popen, n: int, timeout: float) -> str:
    deadline = time.time() + timeout
    last_error: Exception | None = None
    while time.time() < deadline:
        assert proc.poll() is None, f"campaign process exited early:\n{proc.stdout.read() if proc.stdout else ''}"
        try:
            ids = store.list_campaigns(OP)
            if ids and len(store.load_state(ids[0]).candidates) >= n:
                return ids[0]
        except Exception as exc:  # noqa: BLE001 - the writer may hold the sqlite lock or be mid-creation
            last_error = exc
        time.sleep(0.3)
    raise AssertionError(f"no {n} candidate runs within {timeout} s (last error: {last_error!r})")


@pytest.mark.slow
def test_kill_and_resume_loses_and_duplicates_nothing(tmp_path):
    proc = subprocess.Popen([sys.executable, __file__, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        store = store_at(tmp_path)
        run_id = _wait_for_runs(store, proc, 2, timeout=300)
        assert proc.poll() is None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the campaign process and its harness workers
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    killed = store.load_state(run_id)
    assert killed.decisions[-1].action != "stop"

    with make_executor("cpu") as ex:
        out = run_campaign(config(resume=run_id), store=store, executor=ex, generator=OfflineGenerator(seed=0))
    assert out.campaign_run_id == run_id and out.stop_reason.startswith("round budget spent")
    check_final_state(store, run_id)
    final = {c.run_id for c in store.load_state(run_id).candidates}
    kept = {c.run_id for c in killed.candidates}
    assert kept < final  # nothing finished before the kill was lost, and work remained after it


if __name__ == "__main__":
    root = Path(sys.argv[1])
    with make_executor("cpu") as _ex:
        run_campaign(config(), store=store_at(root), executor=_ex, generator=OfflineGenerator(seed=0))


def baseline_solution():  # type: ignore[no-untyped-def]
    """The seed at its defaults, as the campaign's baseline round proposes it."""
    op = load_operator(OP)
    (base,) = OfflineGenerator(seed=0).propose(GenerationContext(definition=op.definition, operator=OP))
    return base


class _ExecutorWrapper:
    """Wraps a real executor; everything but what a subclass overrides goes to it."""

    def __init__(self, ex) -> None:
        self.ex = ex

    def __getattr__(self, name):
        return getattr(self.ex, name)


class _DiesMidRound(_ExecutorWrapper):
    """The real CPU executor, except that the process 'dies' (KeyboardInterrupt, as on SIGINT) just
    before it would evaluate the second candidate of round 1."""

    def __init__(self, ex, round1: set[str]) -> None:
        super().__init__(ex)
        self.round1, self.seen = round1, set()

    def evaluate_many(self, requests):
        for r in requests:
            h = r.solution.hash()
            if h in self.round1:
                if self.seen and h not in self.seen:
                    raise KeyboardInterrupt("killed between the gates of one round")
                self.seen.add(h)
        return self.ex.evaluate_many(requests)


@pytest.mark.slow
def test_a_round_cut_between_its_gates_is_finished_on_resume(tmp_path):
    store = store_at(tmp_path)
    base = baseline_solution()
    round1 = planned_gate_hashes() - {base.hash()}
    with make_executor("cpu") as ex:
        with pytest.raises(KeyboardInterrupt):
            run_campaign(config(), store=store, executor=_DiesMidRound(ex, round1), generator=OfflineGenerator(seed=0))
        (run_id,) = store.list_campaigns(OP)
        cut = store.load_state(run_id)
        assert cut.decisions[-1].action == "generate" and cut.decisions[-1].direction != "baseline"
        assert len({c.solution_hash for c in cut.candidates if c.stage == "gate"} & round1) == 1
        events: list[str] = []
        out = run_campaign(config(resume=run_id), store=store, executor=ex, generator=OfflineGenerator(seed=0),
                           progress=lambda event, **info: events.append(event))
    assert "resuming_round" in events and out.stop_reason.startswith("round budget spent")
    check_final_state(store, run_id)  # both round-1 candidates gated, nothing twice
    assert out.rounds == 1


class _BaselineCrashes(_ExecutorWrapper):
    """Executor wrapper: the seed at its defaults crashes on every workload (as a start point that does not
    fit this device would: RUNTIME_ERROR), everything else is evaluated for real."""

    def __init__(self, ex, broken: str) -> None:
        super().__init__(ex)
        self.broken = broken

    def evaluate_many(self, requests):
        out = []
        for res in self.ex.evaluate_many(requests):
            if res.solution_hash == self.broken:
                res = res.model_copy(update={"results": [
                    r.model_copy(update={"status": EvaluationStatus.RUNTIME_ERROR, "latency": None,
                                         "log": "out of resource: shared memory (injected)"})
                    for r in res.results]})
            out.append(res)
        return out


@pytest.mark.slow
def test_a_campaign_whose_baseline_fails_repairs_from_it_instead_of_stopping(tmp_path):
    store = store_at(tmp_path)
    base = baseline_solution()
    with make_executor("cpu") as ex:
        cfg = config()  # with the repair table, as `kernelopt optimize` builds its rules (cli/optimize.py)
        cfg = cfg.model_copy(update={"rules": cfg.rules.model_copy(update={"repair_directions": load_failure_table()})})
        out = run_campaign(cfg, store=store, executor=_BaselineCrashes(ex, base.hash()),
                           generator=OfflineGenerator(seed=0))
    state = store.load_state(out.campaign_run_id)
    repair = [d for d in state.decisions if "(repair)" in d.reason]
    assert repair and repair[0].parent_run_id == next(c.run_id for c in state.candidates
                                                      if c.solution_hash == base.hash())
    fail = next(e for e in repair[0].evidence if e.kind == "failure")
    assert fail.detail["failure"].startswith("RUNTIME_ERROR: out of resource: shared memory")
    # the repair table of skills/failures.md picks the direction, not the seed's round robin
    pick = next(e for e in repair[0].evidence if e.kind == "direction")
    assert pick.detail["repair_pattern"] == "out of resource: shared memory"
    assert repair[0].direction == pick.detail["preferred"][0]
    assert repair[0].direction in load_failure_table()["out of resource: shared memory"]
    assert out.gated >= 2 and out.champion is not None
    champion = next(c for c in state.candidates if c.run_id == out.champion.run_id)
    assert champion.solution_hash != base.hash() and champion.status == "ALL_PASSED"


@pytest.mark.slow
def test_surrogate_rounds_run_through_the_real_campaign_and_are_tracked(tmp_path):
    """``rules.surrogate``: after the evidence's first round, the controller hands rounds to the offline generator's GP
    (direction ``model_guided``); each is one new point of the seed's space, gated like any candidate, and its
    decision's ``surrogate`` evidence row is in the tracking store."""
    rules = Rules(gate_size=1, repeats=1, probe_candidates=1, surrogate="rbf", surrogate_turns="always")
    cfg = CampaignConfig(operator=OP, harness=HARNESS, rules=rules, workload_limit=2,
                         budget=Budget(max_candidates=5, max_rounds=6, patience=6, candidates_per_round=2,
                                       wall_clock_s=900))
    store = store_at(tmp_path)
    with make_executor("cpu") as ex:
        out = run_campaign(cfg, store=store, executor=ex, generator=OfflineGenerator(seed=0))
    state = store.load_state(out.campaign_run_id)
    guided = [d for d in state.decisions if d.action == "generate" and d.direction == "model_guided"]
    assert guided, [(d.action, d.direction, d.reason) for d in state.decisions]
    row = next(e for e in guided[0].evidence if e.kind == "surrogate")
    assert row.detail["name"] == "rbf" and row.detail["turns"] == "always" and row.detail["measured_solutions"] >= 2
    mine = [c for c in state.candidates if c.direction == "model_guided" and c.stage == "gate"]
    assert mine and all(c.all_passed for c in mine)
    earlier = {c.solution_hash for c in state.candidates if c.start_time < min(m.start_time for m in mine)}
    assert not {c.solution_hash for c in mine} & earlier  # a point not measured before
    (seed,) = load_seeds(OP)
    assert {c.solution_hash for c in mine} <= {seed.instantiate(p).hash() for p in seed.valid_points()}
