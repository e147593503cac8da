"""One (solution, workload) evaluation (:class:`WorkloadRun`): every trial checked, then timed, under the guards.

Per trial ``t``: fresh inputs (seed ``settings.seed + t``) and a bitwise copy of them; the solution runs first on
the inputs, with NaN-poisoned DPS outputs; then the guards (harness integrity, input mutation, plain tensors); then
the reference runs on a clone of the pristine copy (sealed until compared: :mod:`kernelopt.harness.sealed`) and the
definition's evaluator compares. The first failing trial ends the workload. After all trials pass, each trial's
inputs are timed (solution, then reference on the pristine copy when ``settings.time_reference``), the last timed
call and one drawn at random re-checked, and the latencies summarised. The per-call guards, probes and the roofline
floor are :class:`kernelopt.harness.run_guards.GuardedRun`'s; :func:`kernelopt.harness.evaluate.evaluate` builds the
solution and runs one of these per workload.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from kernelopt.data.definition import Definition
from kernelopt.data.records import EvalRequest, HarnessSettings, WorkloadResult
from kernelopt.data.trace import EvaluationStatus as S
from kernelopt.data.workload import Workload
from kernelopt.harness import reference_times, replay, static_policy
from kernelopt.harness.cupti_timer import official_span
from kernelopt.harness.evaluators import Evaluator, OutputFormatError
from kernelopt.harness.guards import InputGuard, IntegrityGuard, ThreadWatch, output_problems, poison_
from kernelopt.harness.inputs import allocate_outputs, make_inputs
from kernelopt.harness.interrupts import noting_sigint, user_interrupt
from kernelopt.harness.reference import run_reference
from kernelopt.harness.run_guards import GuardedRun, LastValue
from kernelopt.harness.run_guards import Stop as _Stop
from kernelopt.harness.run_guards import captured as _captured
from kernelopt.harness.run_guards import tail as _tail
from kernelopt.harness.sealed import Sealed, seal
from kernelopt.harness.stats import summarize
from kernelopt.harness.tensor_cache import TensorCache, fingerprint
from kernelopt.harness.timing import resolve_timer, time_callable

# Reference timings per (definition, reference source, workload, settings, device) in this worker, shared with the
# run's other workers (kernelopt.harness.reference_times): the reference is deterministic code on the same
# seeded inputs, so timing it again for every candidate only spends GPU time (a slow reference such as GDN's
# dominates a campaign otherwise).
_REFERENCE_TIMES: dict[str, tuple[list[list[float]], str | None]] = {}
#: This worker's tensor caches by purpose (``inputs``, ``reference``); see :mod:`kernelopt.harness.tensor_cache`.
_CACHES: dict[str, TensorCache] = {}


def _cache(name: str, budget_mb: int) -> TensorCache | None:
    """The worker's ``name`` cache with this byte budget (``None`` when the budget is 0)."""
    if budget_mb <= 0:
        return None
    cache = _CACHES.setdefault(name, TensorCache(budget_mb << 20))
    cache.max_bytes = budget_mb << 20
    return cache


def _clone(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in values.items()}


@contextlib.contextmanager
def _phase(phases: dict[str, float], name: str):
    """Add the host seconds spent in the block to ``phases[name]`` (also when it raises)."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        phases[name] = round(phases.get(name, 0.0) + time.perf_counter() - t0, 4)


class _SpotCheck:
    """``between`` hook of :func:`time_callable`: copies the outputs of one timed call chosen at random (not the
    last: that one is re-checked anyway) right after it, before the next call's L2 flush, for the re-check."""

    _rng = random.SystemRandom()  # not from the run's seed: a candidate cannot tell which call is checked

    def __init__(self, run: Any, outs: list[Any], last: LastValue) -> None:
        self.run, self.dps_outs, self.last = run, outs, last
        self.at = self._rng.randrange(run.settings.iterations - 1)
        self.value: Any = None  # DPS: the output tensors; else the returned value (copies)
        self.taken = False

    def __call__(self, i: int) -> None:
        if i == self.at + 1:
            self.run._sync()
            self.value = replay.snapshot(self.dps_outs if self.run.dps else self.last.value)
            self.taken = True


@dataclass
class WorkloadRun(GuardedRun):
    """One (solution, workload) evaluation."""

    definition: Definition
    workload: Workload
    fn: Callable[..., Any]
    ref_fn: Callable[..., Any]
    dps: bool
    evaluator: Evaluator
    settings: HarnessSettings
    device: torch.device
    integrity: IntegrityGuard
    policy: static_policy.Policy

    def __post_init__(self) -> None:
        self.log: list[str] = []
        self.max_abs, self.max_rel = 0.0, 0.0
        self.ratio: float | None = None
        self.refs: list[Sealed] = []  # each trial's reference outputs, sealed until compared
        self.extra: dict[str, Any] = {}
        self.solution_threads: set[int] = set()  # threads the solution's checked calls left running

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _call(self, inputs: dict[str, Any], guard: InputGuard, when: str) -> list[Any]:
        args = list(inputs.values())
        threads = ThreadWatch()
        try:
            with _captured(self.log):
                if self.dps:
                    outs = list(allocate_outputs(self.definition, self.workload, self.device).values())
                    if self.settings.poison_outputs:
                        for o in outs:
                            poison_(o)
                    self.fn(*args, *outs)
                else:
                    outs = self.evaluator.normalize(self.definition, self.fn(*args), self.device)
                self._sync()
        except OutputFormatError as exc:
            raise _Stop(S.RUNTIME_ERROR, f"solution output: {exc}") from None
        except BaseException as exc:  # a candidate's SystemExit and KeyboardInterrupt too (see user_interrupt)
            if user_interrupt(exc):
                raise
            raise _Stop(S.RUNTIME_ERROR, f"solution raised {type(exc).__name__}: {exc}\n"
                        + _tail(traceback.format_exc())) from None
        self._guard_after_call(guard, inputs, when, threads)
        problems = output_problems(list(self.definition.outputs), outs, self.device)
        if problems:
            raise _Stop(S.REJECTED, "; ".join(problems))
        return outs

    def _keep_official_span(self, records: dict[str, Any]) -> None:
        """``extra["official_span"]``: where the official span of the timed calls is idle (the CUPTI timer's own
        records; the last trial's gaps, every trial's idle share), evidence for the bottleneck classes."""
        try:
            span = official_span(records)
        except Exception as exc:  # evidence only: never a reason to lose the timing
            self.log.append(f"official span anatomy skipped: {type(exc).__name__}: {exc}")
            return
        if span is not None:
            trials = self.extra.get("official_span", {}).get("idle_pct_by_trial", [])
            self.extra["official_span"] = {**span, "idle_pct_by_trial": [*trials, span["idle_pct"]]}

    def _reference(self, guard: InputGuard, seed: int | None = None) -> Sealed:
        """Reference outputs on the guard's pristine inputs, sealed (:mod:`kernelopt.harness.sealed`: candidate
        code never finds them in memory; compare through ``.opened()``). With ``seed`` (the one the inputs were
        made with), from this worker's cache when the same inputs were seen (see
        :mod:`kernelopt.harness.tensor_cache`), else computed and stored."""
        s = self.settings
        cache = _cache("reference", s.reference_cache_mb) if seed is not None else None
        key = (self.definition.name, hash(self.definition.reference), self.workload.model_dump_json(),
               seed, str(self.device))
        inputs_print = fingerprint(guard.copies) if cache is not None else ()
        refs = self._cache_get(cache, key, inputs_print, "reference outputs", "recomputed")
        if refs is not None:
            return refs
        try:
            refs = seal(run_reference(self.definition, guard.fresh()))
            self._sync()
        except Exception as exc:
            raise _Stop(S.RUNTIME_ERROR, f"reference failed ({type(exc).__name__}: {exc}); not the "
                        "solution's fault\n" + _tail(traceback.format_exc())) from None
        if cache is not None:
            cache.put(key, inputs_print, refs)
        return refs

    def _cache_get(self, cache: TensorCache | None, key: Any, inputs_print: tuple, what: str,
                   redo: str) -> Any:
        """``cache.get`` (``None`` without a cache); notes in the log when the entry had been written into."""
        if cache is None:
            return None
        tampered = cache.tampered
        value = cache.get(key, inputs_print)
        if cache.tampered > tampered:
            self.log.append(f"note: cached {what} changed since they were stored; {redo}")
        return value

    def _inputs(self, seed: int) -> dict[str, Any]:
        """Fresh inputs for ``seed``: clones of this worker's cached copy when it has one (unchanged
        since stored), else generated (and a private copy cached)."""
        cache = _cache("inputs", self.settings.input_cache_mb)
        key = (self.definition.name, self.workload.model_dump_json(), seed, str(self.device))
        hit = self._cache_get(cache, key, (), "inputs", "regenerated")
        if hit is not None:
            return _clone(hit)
        inputs = make_inputs(self.definition, self.workload, device=self.device, seed=seed)
        if cache is not None:
            cache.put(key, (), _clone(inputs))
        return inputs

    def _check_trial(self, t: int) -> tuple[dict[str, Any], InputGuard]:
        inputs = self._inputs(self.settings.seed + t)
        guard = InputGuard(inputs)
        outs = self._call(inputs, guard, "in correctness call")
        sealed = self._reference(guard, self.settings.seed + t)
        self.refs.append(sealed)
        with sealed.opened() as refs:
            v = self.evaluator.check(self.definition, guard.copies, outs, refs, self.settings)
            for attr, val in (("max_abs", v.max_abs), ("max_rel", v.max_rel)):
                cur = getattr(self, attr)
                setattr(self, attr, val if (math.isnan(val) or math.isnan(cur)) else max(cur, val))
            if v.matched_ratio is not None:
                self.ratio = v.matched_ratio if self.ratio is None else min(self.ratio, v.matched_ratio)
            if v.status is not None:
                raise _Stop(v.status, f"trial {t}: {v.message}")
            self._precision_probe(outs, refs, f"trial {t}")
        return inputs, guard

    def _time(self, trials: list[tuple[dict[str, Any], InputGuard]]) -> dict[str, Any]:
        s = self.settings
        kw = {"warmup": s.warmup, "iterations": s.iterations, "device": self.device, "timer": s.timer,
              "flush_l2": s.flush_l2, "cupti_max_call_ms": s.cupti_max_call_ms}
        sol, ref, timer, ref_timer = [], [], None, None
        ref_key = reference_times.cache_key(self.definition.name, self.definition.reference, self.workload.uuid,
                                            s.key(), self.device) if s.cache_reference_timing else None
        cached = (_REFERENCE_TIMES.get(ref_key) or reference_times.load(ref_key)) if ref_key else None
        fresh_ms: list[list[float]] = []
        for t, (inputs, guard) in enumerate(trials):
            outs = []
            if self.dps:
                outs = list(allocate_outputs(self.definition, self.workload, self.device).values())
                for o in outs:
                    poison_(o)
            last = LastValue(self.fn)
            threads = ThreadWatch(self.solution_threads)
            records: dict[str, Any] = {}
            # a random timed call's outputs are kept too (copied between calls, outside the timed windows): the
            # last call's re-check alone passed a kernel that computes only on the call it can tell is the last
            spot = _SpotCheck(self, outs, last) if s.recheck_outputs and s.iterations >= 2 else None
            try:
                with _captured(self.log):
                    times, timer = time_callable(last, [*inputs.values(), *outs], **kw, records=records,
                                                 between=spot)
            except BaseException as exc:  # a candidate's SystemExit and KeyboardInterrupt too
                if user_interrupt(exc):
                    raise
                raise _Stop(S.RUNTIME_ERROR, f"timing the solution failed: {type(exc).__name__}: {exc}\n"
                            + _tail(traceback.format_exc())) from None
            self._keep_official_span(records)
            self._guard_after_call(guard, inputs, "during timing", threads, timed=True)
            if s.recheck_outputs:
                self._sync()  # device-wide: work left on side streams must be finished to be judged
                checks = [("the last timed call", outs if self.dps else last.value)]
                if spot is not None and spot.taken:
                    checks.append((f"timed call {spot.at + 1} of {s.iterations}", spot.value))
                with self.refs[t].opened() as refs:
                    for which, value in checks:
                        self._check_value(guard.copies, value, refs, f"re-check of {which} (trial {t})",
                                          f"output of {which}")
            if s.replay_check:
                fresh_ms.append(self._fresh_pass(inputs, guard, outs, timer, t))
            sol.append(times)
            if s.time_reference and cached is None:
                try:
                    with _phase(self.extra.setdefault("phase_s", {}), "timing_reference"):
                        # reference latency is reporting context only (speedup), never a decision metric:
                        # a reference too slow for the official counts (GDN's per-head Python loops) is
                        # timed with fewer iterations within reference_time_budget_s per trial, noted
                        notes: list[str] = []
                        rtimes, rtimer = time_callable(self.ref_fn, list(guard.copies.values()), **kw,
                                                       budget_s=s.reference_time_budget_s, notes=notes)
                        self.log += [f"reference {n}" for n in notes]
                except Exception as exc:
                    raise _Stop(S.RUNTIME_ERROR, f"timing the reference failed: {type(exc).__name__}: "
                                f"{exc}\n" + _tail(traceback.format_exc())) from None
                ref.append(rtimes)
                ref_timer = rtimer
        if s.time_reference and cached is not None:
            ref, ref_timer = cached
            self.log.append("reference latency reused from an earlier evaluation in this run "
                            "(same workload, inputs, settings, device and torch)")
        elif ref and ref_key:
            _REFERENCE_TIMES[ref_key] = (ref, ref_timer)
            reference_times.store(ref_key, ref, ref_timer)
        requested = resolve_timer(s.timer, self.device)
        for who, ran in (("solution", timer), ("reference", ref_timer)):
            if ran is not None and ran != requested:  # time_callable's CUPTI -> CUDA-event fallback
                self.log.append(f"{who} timed with cuda_event: one call exceeded cupti_max_call_ms="
                                f"{s.cupti_max_call_ms:g} ms (CUPTI tracing of its launches costs too much host time)")
        latency = summarize(sol, timer)
        out: dict[str, Any] = {"latency": latency}
        self._roofline(latency.mean_ms)
        if fresh_ms:
            fresh = summarize(fresh_ms, timer)
            gap = fresh.mean_ms / latency.mean_ms - 1 if latency.mean_ms > 0 else 0.0
            flag = gap > s.replay_max_gap
            self.extra.update(fresh_input_latency_ms=fresh.mean_ms, fresh_input_gap=gap, replay_flag=flag)
            self.log.append(f"fresh-input latency {fresh.mean_ms:.4g} ms vs official {latency.mean_ms:.4g} ms "
                            f"(gap {gap:+.1%})")
            if flag:
                raise _Stop(S.REJECTED, f"fresh-input latency {fresh.mean_ms:.4g} ms exceeds the official "
                            f"{latency.mean_ms:.4g} ms by {gap:.1%} > {s.replay_max_gap:.0%}: outputs or "
                            "intermediates cached across calls on identical inputs?")
        if ref:
            out["reference_latency"] = summarize(ref, ref_timer or timer)
            ref_ms = out["reference_latency"].mean_ms
            out["speedup"] = ref_ms / latency.mean_ms if latency.mean_ms > 0 else None
        return out

    def profile(self, request: EvalRequest) -> dict[str, Any]:
        """torch.profiler table (and Nsight Compute metrics where ``ncu`` exists on a GPU) of the solution
        on the first trial's inputs, with the timed calls' ``official_span`` where the CUPTI timer ran, in child
        processes (:mod:`kernelopt.harness.profile_target`: no profiler state left in this worker); never raises (a
        failure is ``{"error": ...}``)."""
        from kernelopt.harness.ncu import ncu_binary, ncu_profile
        from kernelopt.harness.profiling import torch_profile_isolated

        one = request.model_copy(update={"workloads": [self.workload]})
        limit = {"timeout_s": request.profile_timeout_s} if request.profile_timeout_s else {}
        out: dict[str, Any] = {"torch": torch_profile_isolated(one, str(self.device), **limit)}
        if self.device.type == "cuda" and ncu_binary():
            out["ncu"] = ncu_profile(one, str(self.device), **limit)
        if self.extra.get("official_span"):  # the official loop's own idle share, beside the profilers' evidence
            out["official_span"] = self.extra["official_span"]
        return out

    def result(self) -> WorkloadResult:
        """Run the workload; never raises. ``extra["wall_s"]``: the host seconds it took, reference runs included
        (the controller prices evaluations per workload with it: a GDN prefill gate on two 8,192-token workloads
        took 80+ s where the campaign's median gate workload took ~3 s)."""
        started = time.perf_counter()
        with noting_sigint():
            res = self._result()
        res.extra["wall_s"] = round(time.perf_counter() - started, 4)
        return res

    def _result(self) -> WorkloadResult:
        base = {"uuid": self.workload.uuid, "axes": dict(self.workload.axes)}
        phases = self.extra.setdefault("phase_s", {})  # host seconds per phase: where evaluation time goes
        try:
            with _phase(phases, "check"):
                trials = [self._check_trial(t) for t in range(self.settings.trials)]
            if self.settings.same_address_probe:
                with _phase(phases, "same_address_probe"):
                    self._same_address_probe(*trials[-1])
            with _phase(phases, "timing"):
                perf = self._time(trials)
            self.log.append(f"PASSED {self.settings.trials} trial(s); max abs {self.max_abs:.4g}, "
                            f"max rel {self.max_rel:.4g}")
            return WorkloadResult(**base, status=S.PASSED, max_abs_error=self.max_abs,
                                  max_rel_error=self.max_rel, matched_ratio=self.ratio,
                                  log=_tail("\n".join(self.log)), extra=self.extra, **perf)
        except _Stop as stop:
            self.log.append(f"{stop.status.value}: {stop}")
            errors = {}
            if stop.status == S.INCORRECT_NUMERICAL:
                errors = {"max_abs_error": self.max_abs, "max_rel_error": self.max_rel,
                          "matched_ratio": self.ratio}
            return WorkloadResult(**base, status=stop.status, log=_tail("\n".join(self.log)), extra=self.extra,
                                  **errors)
        except BaseException as exc:  # harness-side failure (inputs, stats), a candidate's in a probe: a record
            if user_interrupt(exc):
                raise
            self.log.append(f"harness error: {type(exc).__name__}: {exc}\n{_tail(traceback.format_exc())}")
            return WorkloadResult(**base, status=S.RUNTIME_ERROR, log=_tail("\n".join(self.log)))
