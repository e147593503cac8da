"""Evidence-driven controller vs random search on one operator's seed space (issue 5 acceptance).

For each generator seed: random search gates ``--budget`` distinct random valid points of the seed
space; the real controller (:func:`kernelopt.controller.decide` + the real offline generator, the
campaign loop replayed in memory) runs with the same candidate budget twice — v2-lite (with the
``bands.json`` evidence: band shares, roofline fractions, bottleneck -> direction table) and v1
(round robin, no evidence). Metric: distinct candidates a controller gates until one of them has a
full mean latency at or below random search's final best (``None`` = not reached within budget).
A ``dispatch`` decision (bands disagree on their best solution) is composed by the platform as the campaign
composes it (:func:`kernelopt.generators.dispatch.compose_dispatch`); in the modeled and tabled modes it
measures, per workload, what its band's specialist measures there (:class:`DispatchRouting`).

Modes:

* ``--mode synthetic`` (CPU, default): latencies from a cheap analytic model of a row-wise Triton
  RMSNorm on an H200 (occupancy from registers/warps, bytes in flight vs the 4.3 TB/s roofline, a
  per-row latency chain, per-wave ramp, L2 re-reads of the two-pass variant, ±1 % deterministic
  noise). **The figures are synthetic**: they test the search logic, not GPU performance.
* ``--mode gpu``: latencies from the real harness (``kernelopt.executor``, one evaluation per
  solution on all workloads, cached), on the GPU.
* ``--mode measure`` (GPU): every valid point of the seed space evaluated once by the real harness
  (official timing) on ``--workloads`` workloads spread over the size range; the latency table is
  written to ``--table`` after every point (a run cut short keeps what it measured and resumes).
* ``--mode table`` (anywhere): the searches replayed over a measured table — real GPU latencies, one
  measurement per point shared by every arm (no repeat noise); as many seeds as wanted at no GPU cost.

Usage: ``python benchmarks/controller_efficiency.py --mode synthetic --seeds 5 --budget 24``
``python benchmarks/controller_efficiency.py --mode measure --workloads 7 --table T.json`` (on the GPU), then
``python benchmarks/controller_efficiency.py --mode table --table T.json --seeds 20 --budget 16``
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import json
import math
import random
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, load_space_table, measure_runs, measured_when, positive_int, stamp, stamps_of

from kernelopt.analysis.campaign_analysis import analyse_operator
from kernelopt.analysis.failures import SKILL_FILE as FAILURE_SKILL_FILE
from kernelopt.analysis.failures import load_failure_table
from kernelopt.cli.tasks import assignments
from kernelopt.controller import Budget, Rules, decide
from kernelopt.controller.specialise import DISPATCH
from kernelopt.controller.workloads import representative
from kernelopt.data import DataError
from kernelopt.data.records import CampaignState, CandidateRecord, ChampionInfo
from kernelopt.data.solution import Solution
from kernelopt.generators import GenerationContext, OfflineGenerator, load_seeds
from kernelopt.generators.base import kernelopt_extra
from kernelopt.generators.dispatch import DispatchError, band_index, compose_planned
from kernelopt.operators import load_operator

SM, H200_BW = 132, 4.3e12
FAILURE_SKILL = FAILURE_SKILL_FILE.relative_to(FAILURE_SKILL_FILE.parents[1])
#: controller rules of both controller arms (random search has none): a direction's first try from a
#: parent asks the offline generator for its own move only (its extra candidates would be random
#: neighbours, not evidence-chosen moves); the repair table of skills/failures.md, as campaigns load it;
#: everything else at the defaults
RULES: dict[str, Any] = {"probe_candidates": 1, "repair_directions": load_failure_table()}


def rmsnorm_model_ms(p: dict[str, Any], batch: int, hidden: int = 4096) -> float:
    """Synthetic H200 latency (ms) of the ``rmsnorm_rowwise`` seed at parameters ``p`` (noise-free)."""
    nw, rpp, bh = p["num_warps"], p["ROWS_PER_PROGRAM"], p["BLOCK_H"]
    one = p["variant"] == "one_pass"
    elems = (hidden if one else bh) / (32 * nw)             # row elements per thread per chunk
    regs = 24 + 2 * elems
    spill = max(0.0, regs - 255) / 255
    warps_per_sm = min(64, 65536 // (int(min(regs, 255)) * 32))
    blocks_per_sm = max(1, min(32, warps_per_sm // nw))
    programs = math.ceil(batch / rpp)
    slots = SM * blocks_per_sm
    waves = math.ceil(programs / slots)
    inflight_kb = min(programs, slots) * nw / SM * 32 * min(elems, 16) * 2 / 1024
    bw_eff = 0.93 * min(1.0, inflight_kb / 24)
    t_mem = (4 * batch * hidden + 2 * hidden) / (H200_BW * max(bw_eff, 1e-3))
    if not one:
        t_mem += 2 * batch * hidden / (2.5 * H200_BW)        # second pass re-reads x from L2
    t_row = 0.9e-6 + 0.05e-6 * math.log2(2 * nw) + (0 if one else 2 * hidden / bh * 0.08e-6) + 2e-6 * spill
    t_lat = waves * t_row * (1 + 0.6 * (rpp - 1))
    ramp = 0.15e-6 * waves
    return 1e3 * (1.5e-6 + ramp + max(t_mem, t_lat) + 0.1 * min(t_mem, t_lat))


MODELS = {"rmsnorm_h4096": rmsnorm_model_ms}


class DispatchRouting:
    """The controller's dispatch candidates in the modeled and tabled modes: a composed dispatch runs, per
    workload, exactly the kernels of the specialist its band routes to (and the official timing spans first
    kernel start to last kernel end, so its host-side branch is outside the timed span), so its latency on a
    workload is that specialist's. (``--mode gpu`` evaluates the composed solution itself.)"""

    op: Any
    plans: dict[str, list[Solution]]

    def add_dispatch(self, sol: Solution, specialists: list[Solution]) -> None:
        self.plans[sol.hash()] = specialists

    def resolve(self, sol: Solution, uuid: str) -> Solution:
        """``sol`` itself, or for a dispatch the point that runs on workload ``uuid`` (a specialist may be a
        dispatch itself); the axis and edges are the ones the composed solution records."""
        while (specialists := self.plans.get(sol.hash())) is not None:
            plan = kernelopt_extra(sol)["dispatch"]
            value = next(w.axes[plan["axis"]] for w in self.op.workloads if w.uuid == uuid)
            sol = specialists[band_index(value, plan["uppers"])]
        return sol


class SyntheticEval(DispatchRouting):
    """Per-workload latencies from the analytic model, ±1 % noise keyed by (solution, workload, run)."""

    def __init__(self, operator: str) -> None:
        self.op = load_operator(operator)
        self.model = MODELS[operator]
        self.axes = {w.uuid: w.axes for w in self.op.workloads}
        self.plans = {}

    def true_ms(self, sol: Solution, uuid: str) -> float:
        return self.model(kernelopt_extra(self.resolve(sol, uuid))["params"], self.axes[uuid]["batch_size"])

    def evaluate(self, sol: Solution, uuids: list[str], run: int) -> dict[str, float]:
        out = {}
        for u in uuids:
            h = hashlib.sha256(f"{sol.hash()}|{u}|{run}".encode()).digest()
            out[u] = self.true_ms(sol, u) * (1 + 0.02 * (h[0] / 255 - 0.5))
        return out

    def true_mean(self, sol: Solution) -> float:
        return statistics.fmean(self.true_ms(sol, u) for u in self.axes)


class HarnessEval:
    """Real harness on the GPU: one full evaluation per solution (cached); gates reuse it."""

    def __init__(self, operator: str) -> None:
        from kernelopt.executor import make_executor

        self.op = load_operator(operator)
        self.executor = make_executor("auto")
        self.settings = judged_settings(operator)
        self.cache: dict[str, dict[str, float]] = {}
        self.device: str | None = None

    def _full(self, sol: Solution) -> dict[str, float]:
        from kernelopt.data.records import EvalRequest

        if sol.hash() not in self.cache:
            (res,) = self.executor.evaluate_many([EvalRequest(definition=self.op.definition, solution=sol,
                                                              workloads=self.op.workloads, settings=self.settings)])
            self.device = res.environment.get("hardware") or self.device
            self.cache[sol.hash()] = {r.uuid: (r.latency.mean_ms if r.passed and r.latency else math.inf)
                                      for r in res.results}
        return self.cache[sol.hash()]

    def evaluate(self, sol: Solution, uuids: list[str], run: int) -> dict[str, float]:
        full = self._full(sol)
        return {u: full[u] for u in uuids}

    def true_mean(self, sol: Solution) -> float:
        return statistics.fmean(self._full(sol).values())


def parse_fix(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` arguments as {key: value} (values parsed as JSON where they parse: 8 -> int)."""
    try:
        return assignments(items, "--fix")
    except DataError as exc:
        raise SystemExit(str(exc)) from None


#: operator -> the seed whose space is searched, for operators with several seeds (``--seed-kernel``, or the seed a
#: measured table was taken from)
SEED_CHOICE: dict[str, str] = {}


def choose_seed(operator: str, name: str | None) -> None:
    """Search ``name``'s space for ``operator`` (None: the operator's only seed)."""
    if name is None:
        SEED_CHOICE.pop(operator, None)
        return
    names = [s.spec.name for s in load_seeds(operator)]
    if name not in names:
        raise SystemExit(f"--seed-kernel {name}: not a seed of {operator} (its seeds: {names})")
    SEED_CHOICE[operator] = name


def table_seed(data: dict[str, Any]) -> str | None:
    """The seed a ``--mode measure`` table was taken from: recorded since 2026-12-01, else read off its point
    names (``<seed>_<hash8>``)."""
    if data.get("seed"):
        return str(data["seed"])
    stems = {n.rsplit("_", 1)[0] for n in (data.get("names") or {}).values()}
    return stems.pop() if len(stems) == 1 else None


def space_seed(operator: str, fix: dict[str, Any] | None = None) -> Any:
    """The operator's seed (its only one, or the one :func:`choose_seed` named); with ``fix``, its space cut
    to the sub-space where each fixed parameter takes one value (every search arm then works in the same
    sub-space: a space of thousands of points, e.g. gemm's 7,920, cannot be measured whole on a lent GPU)."""
    seeds = load_seeds(operator)
    chosen = SEED_CHOICE.get(operator)
    if chosen is not None:
        seeds = [x for x in seeds if x.spec.name == chosen]
    if len(seeds) != 1:
        raise SystemExit(f"{operator} has {len(seeds)} seeds ({[x.spec.name for x in load_seeds(operator)]}): "
                         "name the one to search with --seed-kernel NAME")
    (s,) = seeds
    if not fix:
        return s
    space = dict(s.spec.space)
    for k, v in fix.items():
        if k not in space or v not in space[k]:
            raise SystemExit(f"--fix {k}={v!r}: not in the seed space of {operator} ({k}: {space.get(k)})")
        space[k] = [v]
    spec = s.spec.model_copy(update={"space": space, "defaults": {**s.spec.defaults, **fix}})
    return dataclasses.replace(s, spec=spec)


def judged_settings(operator: str) -> Any:
    """The settings `kernelopt evaluate` and benchmarks/contest.py judge a candidate by: the official preset with
    the definition's own ``harness.json`` (e.g. the MoE's atol 1 / rtol 0.3 / 90 % matched), the reference not
    timed."""
    from kernelopt.cli.build import gpu_available, harness_settings

    return harness_settings({"preset": "official", "time_reference": False}, operator, gpu_available())


def space_points(operator: str, fix: dict[str, Any] | None = None) -> list[Solution]:
    """Every valid point of the operator's (single) seed space (or its ``fix`` sub-space), instantiated."""
    s = space_seed(operator, fix)
    return [s.instantiate(p) for p in s.valid_points()]


def copy_points(data: dict[str, Any], base: Path, table: Path, hashes: set[str]) -> int:
    """Take into the table ``data`` the points of ``base`` that lie in its space (``hashes``) and that it lacks:
    ``base`` measured the same seed on the same workloads and card, over a sub-space (a whole space grown from a
    quarter) or a larger one (a sub-space cut out of it); a point is measured once either way. A new table takes
    ``base``'s card. Returns how many were taken; ``base`` is recorded beside its stamps."""
    src = load_space_table(base, "controller_efficiency.py")
    same = ("operator", "seed", "workloads")
    if any(src.get(k) != data.get(k) for k in same) or data.get("device", src.get("device")) != src.get("device"):
        raise SystemExit(f"--from-table {base}: not the same {', '.join(same)} and device as {table}; it cannot be "
                         "merged")
    inside = {h: row for h, row in src["latency_ms"].items() if h in hashes}
    if not inside:
        raise SystemExit(f"--from-table {base}: none of its points (--fix {src.get('fix')}) lies in {table}'s space "
                         f"(--fix {data['fix']})")
    data["device"] = src.get("device")
    data["timer"] = data.get("timer") or src.get("timer")
    new = {h: row for h, row in inside.items() if h not in data["latency_ms"]}
    data["latency_ms"].update(new)
    data["names"].update({h: src["names"][h] for h in new})
    data.setdefault("failed", {}).update({h: v for h, v in (src.get("failed") or {}).items() if h in new})
    if new:
        data.setdefault("from_tables", []).append({"table": str(base), "points": len(new), "stamps": measure_runs(src)})
    return len(new)


def this_hardware() -> str:
    """The card (or CPU model) a measurement here runs on, as evaluations record it."""
    from kernelopt.cli.build import gpu_available
    from kernelopt.harness.environment import snapshot

    return snapshot("cuda" if gpu_available() else "cpu")["hardware"]


def measure_space(operator: str, table: Path, workloads: int, fix: dict[str, Any] | None = None,
                  retry_failed: bool = False, base: Path | None = None) -> dict[str, Any]:
    """Evaluate every valid seed point on ``workloads`` spread workloads (official settings, GPU when
    present); the table is rewritten after each point and points already in it are skipped (with
    ``retry_failed``, points that failed a workload are evaluated again). ``base``: a table of the same seed whose
    points in this space are taken over first (``copy_points``); each run's stamp is kept in ``stamps``. A table
    never mixes cards: points left to measure on another card than the table's are refused before any runs."""
    from _common import spread_order

    from kernelopt.controller.workloads import workload_size
    from kernelopt.data.records import EvalRequest
    from kernelopt.executor import make_executor

    op = load_operator(operator)
    chosen = spread_order(list(op.workloads), workload_size)[:workloads] if workloads else list(op.workloads)
    data: dict[str, Any] = json.loads(table.read_text()) if table.is_file() else {}
    if data and (data.get("operator") != operator or data.get("workloads") != [w.uuid for w in chosen]
                 or table_seed(data) not in (None, space_seed(operator).spec.name)
                 or (data.get("fix") or {}) != (fix or {})):
        raise SystemExit(f"{table}: measured for another operator, seed, workload set or --fix; use another --table")
    runs = stamps_of(data)
    data.update(operator=operator, seed=space_seed(operator, fix).spec.name, workloads=[w.uuid for w in chosen],
                fix=fix or {})
    lat: dict[str, dict[str, float | None]] = data.setdefault("latency_ms", {})
    names: dict[str, str] = data.setdefault("names", {})
    settings = judged_settings(operator)
    points = space_points(operator, fix)

    stamped = False

    def save(measured: bool = True) -> None:  # this run's first measured point stamps it (points only taken do not)
        nonlocal stamped
        if measured and not stamped:
            data["stamp"], stamped = stamp(), True
            data["stamps"] = [*runs, data["stamp"]]
        table.parent.mkdir(parents=True, exist_ok=True)
        table.write_text(json.dumps(data, indent=1) + "\n")

    with make_executor("auto") as ex:
        if base is not None:
            taken = copy_points(data, base, table, {s.hash() for s in points})
            print(f"{operator}: {taken} points taken from {base}", flush=True)
            if taken:
                save(measured=False)
        todo = [sol for sol in points if sol.hash() not in lat
                or (retry_failed and None in lat[sol.hash()].values())]
        print(f"{operator}: {len(lat)} points measured, {len(todo)} to go, {len(chosen)} workloads", flush=True)
        if todo and data.get("device") not in (None, here := this_hardware()):
            raise SystemExit(f"{table}: measured on {data['device']}, this machine has {here}; a table never mixes "
                             "cards: use another --table")
        for i, sol in enumerate(todo, 1):
            (res,) = ex.evaluate_many([EvalRequest(definition=op.definition, solution=sol, workloads=chosen,
                                                   settings=settings)])
            data["device"] = res.environment.get("hardware") or data.get("device")
            data["timer"] = res.timer or data.get("timer")
            lat[sol.hash()] = {r.uuid: (r.latency.mean_ms if r.passed and r.latency else None) for r in res.results}
            names[sol.hash()] = sol.name
            bad = [r for r in res.results if not r.passed]
            data.setdefault("failed", {}).pop(sol.hash(), None)
            if bad:  # why a point failed, so a table with holes can be read without the GPU session's log
                data["failed"][sol.hash()] = {"statuses": dict(collections.Counter(str(r.status.value) for r in bad)),
                                              "log": (bad[0].log or "").strip()[-600:],
                                              "failure": res.failure_line()}
            save()
            ok = [v for v in lat[sol.hash()].values() if v is not None]
            why = data.get("failed", {}).get(sol.hash()) if len(ok) < len(chosen) else None
            print(f"[{i}/{len(todo)}] {sol.name}: {len(ok)}/{len(chosen)} passed"
                  + (f", mean {statistics.fmean(ok):.5f} ms" if ok else "")
                  + (f"; failed {why['statuses']}: {why['log'][-200:]!r}" if why else ""), flush=True)
    return data


class TableEval(DispatchRouting):
    """Latencies looked up in a table written by ``--mode measure`` (the operator's workloads are cut to
    the table's)."""

    def __init__(self, table: Path) -> None:
        self.plans = {}
        data = load_space_table(table, "controller_efficiency.py")  # a bad file: one line, exit 2
        op = load_operator(data["operator"])
        if len(load_seeds(op.name)) > 1:
            choose_seed(op.name, table_seed(data))
        keep = set(data["workloads"])
        self.op = dataclasses.replace(op, workloads=[w for w in op.workloads if w.uuid in keep])
        self.device = data.get("device")
        self.table: dict[str, dict[str, float | None]] = data["latency_ms"]
        self.failed: dict[str, dict[str, Any]] = data.get("failed") or {}
        self.source = str(table)
        self.fix: dict[str, Any] = data.get("fix") or {}
        missing = [s.name for s in space_points(op.name, self.fix) if s.hash() not in self.table]
        if missing:
            raise SystemExit(f"{table}: {len(missing)} valid points of the seed space not measured (e.g. "
                             f"{missing[:3]}); finish it with --mode measure")

    def evaluate(self, sol: Solution, uuids: list[str], run: int) -> dict[str, float]:
        out = {}
        for u in uuids:
            point = self.resolve(sol, u)
            row = self.table.get(point.hash())
            if row is None:
                raise KeyError(f"{point.name} ({point.hash()[:12]}) is not in the table {self.source}")
            out[u] = math.inf if row[u] is None else float(row[u])
        return out

    def failure(self, sol: Solution) -> str | None:
        """The failure line (:meth:`EvalResult.failure_line`) ``--mode measure`` kept for this point (tables
        measured before 2026-11-30 call Y kept none)."""
        return (self.failed.get(sol.hash()) or {}).get("failure")

    def true_mean(self, sol: Solution) -> float:
        return statistics.fmean(self.evaluate(sol, [w.uuid for w in self.op.workloads], 0).values())


def random_search(operator: str, budget: int, seed: int, fix: dict[str, Any] | None = None) -> list[Solution]:
    """``budget`` distinct valid points of the (single) seed's space, in random order."""
    s = space_seed(operator, fix)
    valid = s.valid_points()
    random.Random(seed).shuffle(valid)
    return [s.instantiate(p) for p in valid[:budget]]


def random_arm(operator: str, ev: Any, budget: int, seed: int, fix: dict[str, Any] | None = None,
               within: float = 0.0) -> tuple[list[Solution], float, int]:
    """Random search's run for one seed: its points in order, its final best full mean (the target every arm is
    counted against) and the 1-based index at which it reached it itself."""
    rnd = random_search(operator, budget, seed, fix)
    target = min(ev.true_mean(s) for s in rnd)
    return rnd, target, needed(rnd, ev, target, within)  # type: ignore[return-value]


def start_point(operator: str, seed: int, fix: dict[str, Any] | None = None) -> dict[str, Any]:
    """A random valid point of the seed space other than its defaults (the controllers' baseline)."""
    s = space_seed(operator, fix)
    valid = [p for p in s.valid_points() if p != s.spec.defaults]
    return random.Random(10_000 + seed).choice(valid)


def run_controller(operator: str, ev: Any, budget: int, seed: int, evidence: bool,
                   device: str | None, start: dict[str, Any] | None = None,
                   fix: dict[str, Any] | None = None,
                   rules: dict[str, Any] | None = None) -> tuple[list[Solution], str]:
    """Replay the campaign loop in memory; returns gated solutions in order and the stop reason.

    ``start`` replaces the seed's defaults as the baseline point (None keeps the defaults); ``fix``
    cuts the generator's seed space as :func:`space_seed` does."""
    op = ev.op
    uuids = [w.uuid for w in op.workloads]
    gate = [w.uuid for w in representative(op.workloads, 3)]
    gen = OfflineGenerator(seed=seed)
    gen.seeds(operator)[:] = [space_seed(operator, fix)]  # the searched seed only (an operator may have several)
    if start is not None:  # begin from another point of the space than the seed's defaults
        gen.seeds(operator)[:] = [dataclasses.replace(sd, spec=sd.spec.model_copy(update={"defaults": dict(start)}))
                                  for sd in gen.seeds(operator)]
    b = Budget(max_candidates=budget, max_rounds=10 * budget, patience=10 * budget, wall_clock_s=1e9)
    rules = Rules(**(RULES if rules is None else rules))
    cands: list[CandidateRecord] = []
    decisions, sols, order = [], {}, []
    champion, analysis, reason = None, None, ""
    for step in range(20 * budget):
        st = CampaignState(campaign_run_id="sim", definition=op.name, candidates=cands, decisions=decisions,
                           champion=champion, gate_workloads=gate, all_workloads=uuids, analysis=analysis)
        d = decide(st, b, rules)
        decisions.append(d)
        if d.action == "stop":
            reason = d.reason
            break
        if d.action == "generate":
            if d.direction == DISPATCH:  # composed by the platform, as the campaign does (campaign_steps)
                proposals = compose(op.definition, d, sols, ev)
            else:
                parent = sols.get(d.parent_run_id) if d.parent_run_id else None
                ctx = GenerationContext(definition=op.definition, operator=operator, parent=parent,
                                        direction=None if d.direction == "baseline" else d.direction,
                                        count=d.count, history=list(cands), seed=seed, decision=d)
                proposals = gen.propose(ctx)[: d.count]
            seen = {c.solution_hash for c in cands}
            for sol in proposals:
                if sol.hash() in seen:
                    continue
                seen.add(sol.hash())
                lat = ev.evaluate(sol, list(d.workloads) or gate, 0)
                rid = f"r{len(cands)}"
                failure = ev.failure(sol) if hasattr(ev, "failure") else None
                cands.append(_record(rid, sol, "gate", lat, d.parent_run_id, d.direction, len(cands), failure))
                sols[rid] = sol
                order.append(sol)
        elif d.action in ("sweep", "repeat"):
            for rid in d.candidate_run_ids:
                sol = sols[rid]
                runs = sum(c.solution_hash == sol.hash() and c.stage != "gate" for c in cands)
                new = f"r{len(cands)}"
                cands.append(_record(new, sol, d.action, ev.evaluate(sol, uuids, runs + 1), None, None, len(cands)))
                sols[new] = sol
        elif d.action == "promote":
            full = [c for c in cands if c.run_id in d.candidate_run_ids]
            per = {u: statistics.fmean(c.per_workload_ms[u] for c in full) for u in uuids}
            champion = ChampionInfo(run_id=d.candidate_run_ids[0], per_workload_ms=per,
                                    mean_latency_ms=statistics.fmean(c.mean_latency_ms for c in full))
        if evidence and analysis is None:
            sweeps = [c for c in cands if c.stage == "sweep"]
            if sweeps:
                analysis = analyse_operator(op.definition, op.workloads, op.path, sweeps[0].per_workload_ms,
                                            device or getattr(ev, "device", None))
    return order, reason


def compose(definition: Any, d: Any, sols: dict[str, Solution], ev: Any) -> list[Solution]:
    """The dispatch candidate of a ``dispatch`` decision (its specialists behind the band edges), told to the
    evaluator when it routes dispatches itself; none when the specialists cannot be combined."""
    specialists = [sols[rid] for rid in d.candidate_run_ids]
    try:
        sol = compose_planned(definition, d, specialists)
    except DispatchError:
        return []
    if hasattr(ev, "add_dispatch"):
        ev.add_dispatch(sol, specialists)
    return [sol]


def _record(rid: str, sol: Solution, stage: str, lat: dict[str, float], parent: str | None,
            direction: str | None, t: int, failure: str | None = None) -> CandidateRecord:
    ok = all(math.isfinite(v) for v in lat.values())
    return CandidateRecord(run_id=rid, name=sol.name, solution_hash=sol.hash(), stage=stage, parent_run_id=parent,
                           direction=direction, params={"directions": kernelopt_extra(sol).get("directions")},
                           pass_count=len(lat) if ok else 0, workload_count=len(lat),
                           mean_latency_ms=statistics.fmean(lat.values()) if ok else None,
                           per_workload_ms=lat if ok else {}, status="FINISHED", start_time=float(t),
                           failure=None if ok else failure)


def censored_ratio(got: int | None, random_needed: int, budget: int) -> float:
    """Issue 5's ratio for one seed: candidates an arm needed over random search's count, an arm that never reached
    the target counted as ``budget + 1`` (a lower bound on what it would have needed)."""
    return (budget + 1 if got is None else got) / random_needed


def needed(order: list[Solution], ev: Any, target: float, within: float = 0.0) -> int | None:
    """1-based index of the first solution whose full mean is at or below ``target`` (or within the relative
    margin ``within`` of it: ``--reach-within``)."""
    for i, sol in enumerate(order, 1):
        if ev.true_mean(sol) <= target * (1 + within + 1e-9):
            return i
    return None


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def result_stem(args: argparse.Namespace, changed: dict[str, Any], within: float) -> Path:
    """The result files' path without suffix: named after the mode (and table, budget, changed rules, margin)."""
    stem = args.out / (f"controller_efficiency_{args.mode}" if args.mode != "table"
                       else "controller_efficiency_" + Path(args.table).stem.removeprefix("controller_space_")
                       + f"_measured_b{args.budget}")
    # the rules' values and the margin with their dots as "p" (min_improvement 0.002 -> "_min_improvement0p002",
    # --reach-within 0.005 -> "_within0p5pct"): a dot would be taken for the suffix by .with_suffix(), so 0.002 and
    # 0.005 both wrote "..._min_improvement0.json", the second replacing the first
    named = "".join(f"_{k}{v}" for k, v in changed.items()) + (f"_within{within * 100:g}pct" if within else "")
    return stem.with_name(stem.name + named.replace(".", "p"))


def overwrite_clash(path: Path, args: argparse.Namespace) -> str | None:
    """Why writing ``path`` would replace a result of another run (its seeds, start or budget), else ``None``: the
    file name does not carry them, and a 2-seed smoke run replaced a committed 20-seed result without a word."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # nothing there, or nothing a result file holds
    theirs = {k: old.get(k) for k in ("seeds", "start", "budget")}
    mine = {"seeds": args.seeds, "start": args.start, "budget": args.budget}
    if theirs == mine:
        return None
    return (f"{path} holds a result of " + ", ".join(f"{k} {v}" for k, v in theirs.items()) + "; this run's: "
            + ", ".join(f"{k} {v}" for k, v in mine.items()))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the comparison and write ``benchmarks/results/controller_efficiency_<mode>.{json,md}``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["synthetic", "gpu", "measure", "table"], default="synthetic")
    ap.add_argument("--table", type=Path, default=None, help="latency table (--mode measure / table)")
    ap.add_argument("--workloads", type=int, default=7, help="--mode measure: workloads spread over sizes (0: all)")
    ap.add_argument("--from-table", type=Path, default=None, metavar="FILE",
                    help="--mode measure: first take the points of FILE that lie in this table's space (FILE: the same "
                         "seed measured on the same workloads and card, over a sub-space or a larger one)")
    ap.add_argument("--retry-failed", action="store_true",
                    help="--mode measure: evaluate again the points of the table that failed a workload")
    ap.add_argument("--operator", default=None,
                    help="default rmsnorm_h4096; --mode table searches the table's operator")
    ap.add_argument("--seeds", type=positive_int, default=5)
    ap.add_argument("--budget", type=positive_int, default=24, help="distinct candidates per search")
    ap.add_argument("--out", type=Path, default=RESULTS,
                    help="results folder (default benchmarks/results); the file names follow the mode and table")
    ap.add_argument("--fix", nargs="*", default=[], metavar="KEY=VALUE",
                    help="--mode measure: search a sub-space where these seed parameters are fixed (recorded "
                         "in the table; --mode table reads it from there)")
    ap.add_argument("--rule", nargs="*", default=[], metavar="KEY=VALUE",
                    help="controller rule over the script's (both controller arms), e.g. defer_lost_after=2; "
                         "the result files get a suffix naming it")
    ap.add_argument("--seed-kernel", default=None, metavar="NAME",
                    help="the seed whose space is searched, for operators with several seeds (--mode table reads "
                         "it from the table)")
    ap.add_argument("--reach-within", type=float, default=0.0, metavar="REL",
                    help="count a candidate as reaching a target latency when it is within this relative margin of "
                         "it (e.g. 0.02, the controller's default noise floor: points a single measurement cannot "
                         "tell apart); default 0 (exact); the result files get a suffix naming it")
    ap.add_argument("--force", action="store_true",
                    help="replace a result file of the same name recorded with other seeds, start or budget")
    ap.add_argument("--start", choices=["random", "defaults"], default="random",
                    help="controllers' baseline: a random point per seed (default) or the seed's tuned defaults")
    args = ap.parse_args(argv)
    given_operator, args.operator = args.operator, args.operator or "rmsnorm_h4096"
    if args.out.suffix in (".json", ".md") or args.out.is_file():
        raise SystemExit(f"--out {args.out}: give a folder; the result files are named after the mode and table")
    if args.mode in ("measure", "table") and args.table is None:
        ap.error(f"--mode {args.mode} needs --table FILE")
    if args.mode == "table" and args.fix:
        ap.error("--fix: --mode table searches the sub-space recorded in the table (set --fix when measuring it)")
    rules = {**RULES, **parse_fix(args.rule)}
    changed = {k: v for k, v in rules.items() if k not in RULES or RULES[k] != v}  # named in the file names
    if not 0 <= args.reach_within < 1:
        ap.error(f"--reach-within {args.reach_within}: expected a relative margin in [0, 1)")
    within = args.reach_within
    try:
        Rules(**rules)
    except ValueError as exc:
        ap.error(f"--rule: {exc}")
    if args.seed_kernel is not None:
        if args.mode == "table":
            ap.error("--seed-kernel: --mode table searches the seed recorded in the table")
        choose_seed(args.operator, args.seed_kernel)
    if args.mode == "measure":
        return measure_space(args.operator, args.table, args.workloads, parse_fix(args.fix), args.retry_failed,
                             args.from_table)
    if args.from_table is not None:
        ap.error("--from-table: only with --mode measure")
    stem = result_stem(args, changed, within)
    clash = overwrite_clash(stem.with_suffix(".json"), args)
    if clash and not args.force:
        raise SystemExit(f"controller_efficiency.py: {clash}; give another --out folder, or --force to replace it")
    if args.mode == "synthetic" and args.operator not in MODELS:
        raise SystemExit(f"no synthetic model for {args.operator}; have {sorted(MODELS)}")
    ev: Any
    if args.mode == "table":
        ev = TableEval(args.table)
        if given_operator not in (None, ev.op.name):  # it was replaced by the table's without a word
            ap.error(f"--operator {given_operator}: the table {args.table} is of {ev.op.name}")
        args.operator = ev.op.name
    else:
        ev = SyntheticEval(args.operator) if args.mode == "synthetic" else HarnessEval(args.operator)
    device = "NVIDIA H200 (synthetic model)" if args.mode == "synthetic" else None
    fix = ev.fix if args.mode == "table" else parse_fix(args.fix)
    rows = []
    # table mode knows every point: also count the candidates each arm needs to reach the space's best
    space_best = (min(ev.true_mean(s) for s in space_points(args.operator, fix)) if args.mode == "table" else None)
    for seed in range(args.seeds):
        rnd, target, random_needed = random_arm(args.operator, ev, args.budget, seed, fix, within)
        start = start_point(args.operator, seed, fix) if args.start == "random" else None
        row = {"seed": seed, "random_final_best_ms": target, "random_needed": random_needed,
               "start": start}
        if space_best is not None:
            row["random_to_space_best"] = needed(rnd, ev, space_best, within)
        for arm, evidence in (("evidence", True), ("v1", False)):
            order, reason = run_controller(args.operator, ev, args.budget, seed, evidence, device, start, fix, rules)
            row[f"{arm}_needed"] = needed(order, ev, target, within)
            if space_best is not None:
                row[f"{arm}_to_space_best"] = needed(order, ev, space_best, within)
            row[f"{arm}_best_ms"] = min(ev.true_mean(s) for s in order)
            row[f"{arm}_gated"] = len(order)
            row[f"{arm}_stop"] = reason
        rows.append(row)
        print(json.dumps(row), flush=True)

    def summary(arm: str) -> dict[str, Any]:
        got = [r[f"{arm}_needed"] for r in rows if r[f"{arm}_needed"] is not None]
        return {"reached": f"{len(got)}/{len(rows)}", "median_needed": statistics.median(got) if got else None,
                "mean_needed": statistics.fmean(got) if got else None}

    labels = {"synthetic": "SYNTHETIC latency model (CPU), not a GPU measurement", "gpu": "GPU (real harness)",
              "table": f"searches replayed over a latency table measured on {ev.device if args.mode == 'table' else ''} "
                       "by the real harness"}
    out = {"label": labels[args.mode], "mode": args.mode, "table": str(args.table) if args.table else None, "operator": args.operator, "budget": args.budget,
           "seeds": args.seeds, "start": args.start, "fix": fix, "rules": rules, "stamp": stamp(), "rows": rows,
           "summary": {a: summary(a) for a in ("random", "evidence", "v1")}}
    ratio = [r["evidence_needed"] / r["random_needed"] for r in rows if r["evidence_needed"] is not None]
    out["summary"]["evidence_over_random_median"] = statistics.median(ratio) if ratio else None
    # the median above leaves out the seeds where the controller never reached the target; counting each of
    # those as budget + 1 candidates (a lower bound on what it would have needed) gives the conservative figure
    censored = [censored_ratio(r["evidence_needed"], r["random_needed"], args.budget) for r in rows]
    out["summary"]["evidence_over_random_median_censored"] = statistics.median(censored) if censored else None
    out["reach_within"] = within
    if space_best is not None:
        out["space_best_ms"] = space_best
        for arm in ("random", "evidence", "v1"):
            got = [r[f"{arm}_to_space_best"] for r in rows if r[f"{arm}_to_space_best"] is not None]
            out["summary"][f"{arm}_to_space_best"] = {"reached": f"{len(got)}/{len(rows)}",
                                                      "median_needed": statistics.median(got) if got else None}
    args.out.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"# Controller efficiency — {out['label']}", "",
             f"Operator `{args.operator}`, budget {args.budget} distinct candidates per search, {args.seeds} seeds. "
             "Candidates gated until one reaches random search's final best full-mean latency "
             + (f"(within {within:.1%} of it: `--reach-within {within:g}`) " if within else "")
             + "(random: index of its own best). Controllers start from "
             + ("a random point of the space per seed (the same for both arms)" if args.start == "random"
                else "the seed's tuned defaults") + ". Command: "
             f"`python benchmarks/controller_efficiency.py --mode {args.mode} --seeds {args.seeds} "
             f"--budget {args.budget} --start {args.start}"
             + (f" --table {args.table}" if args.table else "")
             + (" --rule " + " ".join(f"{k}={v}" for k, v in changed.items()) if changed else "")
             + (f" --reach-within {within:g}" if within else "")
             + "`. Controller rules (both controller arms): "
             + ", ".join(f"{k}={v}" if k != "repair_directions" else f"{k}=<{FAILURE_SKILL} patterns>"
                         for k, v in rules.items()) + " (the rest at the defaults).", ""]
    if args.mode == "table":
        meta = json.loads(Path(args.table).read_text())
        sub = (" (the sub-space " + ", ".join(f"{k}={v}" for k, v in fix.items()) + "; the searches stay in it)"
               if fix else "")
        lines += [f"Latencies: `{args.table}` — every valid point of the seed space{sub} ({len(meta['latency_ms'])}) "
                  f"evaluated once by the real harness (official timing, timer {meta.get('timer')}) on "
                  f"{len(meta['workloads'])} workloads spread over the size range, {meta.get('device')}, "
                  f"{measured_when(meta)} (`--mode measure`). Every arm reads the same "
                  "measurement of a point (no repeat noise).", ""]
    if args.mode == "synthetic":
        lines += ["**Synthetic**: latencies come from the analytic RMSNorm/H200 model in the script (not measured); "
                  "this checks the search logic only. GPU figures need `--mode gpu` on the H200.", ""]
    lines += ["| seed | random best ms | random needed | evidence needed | v1 needed | evidence best ms | v1 best ms |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['seed']} | {r['random_final_best_ms']:.5f} | {r['random_needed']} | {r['evidence_needed']} "
                     f"| {r['v1_needed']} | {r['evidence_best_ms']:.5f} | {r['v1_best_ms']:.5f} |")
    s = out["summary"]
    lines += ["", f"Median needed — random {s['random']['median_needed']}, evidence {s['evidence']['median_needed']} "
              f"(reached {s['evidence']['reached']}), v1 {s['v1']['median_needed']} (reached {s['v1']['reached']}); "
              f"median evidence/random ratio {_fmt(s['evidence_over_random_median'])} over the seeds it reached; "
              f"{_fmt(s['evidence_over_random_median_censored'])} counting each unreached seed as budget + 1 "
              "candidates. Target (issue 5): <= 1/3."]
    if space_best is not None:
        b = {a: s[f"{a}_to_space_best"] for a in ("random", "evidence", "v1")}
        lines += ["", f"Space's best point ({space_best:.5f} ms) reached within the budget — "
                  + ", ".join(f"{a} {b[a]['reached']} (median {b[a]['median_needed']} candidates)" for a in b)
                  + ". (Random search's own final best is a moving target: a lucky early draw makes the first "
                  "metric small; this one is the same target for every arm.)"]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return out


if __name__ == "__main__":
    main()
