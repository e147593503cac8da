"""``evaluate(request, device)``: build once, then per workload check every trial and time it.

Per workload and trial ``t``: fresh inputs (seed ``settings.seed + t``) and a bitwise copy of them;
the solution runs first on the inputs, with NaN-poisoned DPS outputs; then the guards (harness
integrity, input mutation, plain tensors); then the reference runs on a clone of the pristine copy
and the definition's evaluator compares. The first failing trial ends the workload. After all trials
pass, each trial's inputs are timed (solution, then reference on the pristine copy when
``settings.time_reference``) and summarised: mean of trial medians, p95, bootstrap CI, speedup
``ref_mean / sol_mean``. Every kernel failure becomes a status; nothing escapes but bad requests.
"""

from __future__ import annotations

import contextlib
import io
import math
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from kernelopt.data.definition import Definition
from kernelopt.data.records import EvalRequest, EvalResult, HarnessSettings, WorkloadResult
from kernelopt.data.trace import EvaluationStatus as S
from kernelopt.data.workload import Workload
from kernelopt.harness import environment
from kernelopt.harness.builders import BuildError, build
from kernelopt.harness.evaluators import Evaluator, OutputFormatError, select_evaluator
from kernelopt.harness.guards import InputGuard, IntegrityGuard, output_problems, poison_
from kernelopt.harness.inputs import allocate_outputs, make_inputs
from kernelopt.harness.reference import load_reference, run_reference
from kernelopt.harness.stats import summarize
from kernelopt.harness.timing import time_callable

LOG_LIMIT = 20_000


class _Stop(Exception):
    """Ends a workload with a status (raised inside ``_Run``)."""

    def __init__(self, status: S, message: str) -> None:
        super().__init__(message)
        self.status = status


def _tail(text: str, limit: int = LOG_LIMIT) -> str:
    return text if len(text) <= limit else "[... truncated ...]\n" + text[-limit:]


def resolve_device(device: str | torch.device | None, settings: HarnessSettings) -> torch.device:
    """The evaluation device: ``device``, else ``settings.device``; ``auto`` picks CUDA when present.

    Raises:
        ValueError: A CUDA device was asked for but none is usable.
    """
    name = str(device) if device is not None else settings.device
    if name == "auto":
        auto = "cuda" if torch.cuda.is_available() else "cpu"
        name = settings.device if settings.device != "auto" else auto
    dev = torch.device(name)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"device '{name}' requested but CUDA is not available")
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        if index >= torch.cuda.device_count():
            raise ValueError(f"device '{name}': only {torch.cuda.device_count()} CUDA device(s)")
        dev = torch.device("cuda", index)
    elif dev.type != "cpu":
        raise ValueError(f"unsupported device '{name}' (use cpu, cuda or cuda:N)")
    return dev


@contextlib.contextmanager
def _captured(sink: list[str]):
    """Capture Python-level stdout/stderr of solution code into ``sink`` (bounded)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            yield
        finally:
            text = buf.getvalue()
            if text:
                sink.append("[solution output]\n" + _tail(text, 4_000))


# Reference timings per (definition, reference source, workload, settings, device) in this worker:
# the reference is deterministic code on the same seeded inputs, so timing it again for every
# candidate only spends GPU time (a slow reference such as GDN's dominates a campaign otherwise).
_REFERENCE_TIMES: dict[tuple[Any, ...], list[list[float]]] = {}


@dataclass
class _Run:
    """One (solution, workload) evaluation."""

    definition: Definition
    workload: Workload
    fn: Callable[..., Any]
    ref_fn: Callable[..., Any]
    dps: bool
    evaluator: Evaluator
    settings: HarnessSettings
    device: torch.device

    def __post_init__(self) -> None:
        self.log: list[str] = []
        self.max_abs, self.max_rel = 0.0, 0.0
        self.ratio: float | None = None
        self.integrity = IntegrityGuard()

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _guard_after_call(self, guard: InputGuard, inputs: dict[str, Any], when: str) -> None:
        tampered = self.integrity.tampered()
        if tampered:
            raise _Stop(S.REJECTED, f"harness tampering {when}: replaced {tampered[:5]}")
        if self.settings.check_input_mutation:
            changed = guard.mutated(inputs)
            if changed:
                raise _Stop(S.REJECTED, f"input mutation {when}: {', '.join(changed)}")

    def _call(self, inputs: dict[str, Any]) -> list[Any]:
        args = list(inputs.values())
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
        except Exception as exc:
            raise _Stop(S.RUNTIME_ERROR, f"solution raised {type(exc).__name__}: {exc}\n"
                        + _tail(traceback.format_exc())) from None
        return outs

    def _check_trial(self, t: int) -> tuple[dict[str, Any], InputGuard]:
        inputs = make_inputs(self.definition, self.workload, device=self.device, seed=self.settings.seed + t)
        guard = InputGuard(inputs)
        outs = self._call(inputs)
        self._guard_after_call(guard, inputs, "in correctness call")
        problems = output_problems(list(self.definition.outputs), outs, self.device)
        if problems:
            raise _Stop(S.REJECTED, "; ".join(problems))
        try:
            refs = run_reference(self.definition, guard.fresh())
            self._sync()
        except Exception as exc:
            raise _Stop(S.RUNTIME_ERROR, f"reference failed ({type(exc).__name__}: {exc}); not the "
                        "solution's fault\n" + _tail(traceback.format_exc())) from None
        v = self.evaluator.check(self.definition, guard.copies, outs, refs, self.settings)
        for attr, val in (("max_abs", v.max_abs), ("max_rel", v.max_rel)):
            cur = getattr(self, attr)
            setattr(self, attr, val if (math.isnan(val) or math.isnan(cur)) else max(cur, val))
        if v.matched_ratio is not None:
            self.ratio = v.matched_ratio if self.ratio is None else min(self.ratio, v.matched_ratio)
        if v.status is not None:
            raise _Stop(v.status, f"trial {t}: {v.message}")
        return inputs, guard

    def _reference_budget(self, kw: dict[str, Any], guard: InputGuard) -> dict[str, Any]:
        """Timing counts for the reference: official ones unless one call is so slow that they would
        exceed ``settings.reference_time_budget_s`` per trial (e.g. GDN's per-head Python loops); then
        fewer iterations (at least 3) and one warm-up, noted in the log. Reference latency is reporting
        context only (speedup), never a decision metric."""
        budget = self.settings.reference_time_budget_s
        if not budget:
            return kw
        args = list(guard.copies.values())
        self._sync()
        t0 = time.perf_counter()
        self.ref_fn(*args)
        self._sync()
        one = time.perf_counter() - t0
        full = one * (kw["warmup"] + kw["iterations"])
        if full <= budget:
            return kw
        iters = max(3, min(kw["iterations"], int(budget / max(one, 1e-9)) - 1))
        self.log.append(f"reference timed with warmup=1 iterations={iters} (one call {one * 1e3:.1f} ms; the "
                        f"official {kw['warmup']}/{kw['iterations']} would exceed the {budget:g} s budget)")
        return {**kw, "warmup": min(1, kw["warmup"]), "iterations": iters}

    def _time(self, trials: list[tuple[dict[str, Any], InputGuard]]) -> dict[str, Any]:
        s = self.settings
        kw = {"warmup": s.warmup, "iterations": s.iterations, "device": self.device, "timer": s.timer,
              "flush_l2": s.flush_l2}
        sol, ref, timer = [], [], None
        ref_key = (self.definition.name, hash(self.definition.reference), self.workload.uuid, s.key(),
                   str(self.device))
        cached = _REFERENCE_TIMES.get(ref_key) if s.cache_reference_timing else None
        for inputs, guard in trials:
            outs = []
            if self.dps:
                outs = list(allocate_outputs(self.definition, self.workload, self.device).values())
            try:
                with _captured(self.log):
                    times, timer = time_callable(self.fn, [*inputs.values(), *outs], **kw)
            except Exception as exc:
                raise _Stop(S.RUNTIME_ERROR, f"timing the solution failed: {type(exc).__name__}: {exc}\n"
                            + _tail(traceback.format_exc())) from None
            self._guard_after_call(guard, inputs, "during timing")
            sol.append(times)
            if s.time_reference and cached is None:
                try:
                    rtimes, _ = time_callable(self.ref_fn, list(guard.copies.values()),
                                              **self._reference_budget(kw, guard))
                except Exception as exc:
                    raise _Stop(S.RUNTIME_ERROR, f"timing the reference failed: {type(exc).__name__}: "
                                f"{exc}\n" + _tail(traceback.format_exc())) from None
                ref.append(rtimes)
        if s.time_reference and cached is not None:
            ref = cached
            self.log.append("reference latency reused from an earlier evaluation in this worker "
                            "(same workload, inputs, settings and device)")
        elif ref and s.cache_reference_timing:
            _REFERENCE_TIMES[ref_key] = ref
        latency = summarize(sol, timer)
        out: dict[str, Any] = {"latency": latency}
        if ref:
            out["reference_latency"] = summarize(ref, timer)
            ref_ms = out["reference_latency"].mean_ms
            out["speedup"] = ref_ms / latency.mean_ms if latency.mean_ms > 0 else None
        return out

    def result(self) -> WorkloadResult:
        """Run the workload; never raises."""
        base = {"uuid": self.workload.uuid, "axes": dict(self.workload.axes)}
        try:
            trials = [self._check_trial(t) for t in range(self.settings.trials)]
            perf = self._time(trials)
            self.log.append(f"PASSED {self.settings.trials} trial(s); max abs {self.max_abs:.4g}, "
                            f"max rel {self.max_rel:.4g}")
            return WorkloadResult(**base, status=S.PASSED, max_abs_error=self.max_abs,
                                  max_rel_error=self.max_rel, matched_ratio=self.ratio,
                                  log=_tail("\n".join(self.log)), **perf)
        except _Stop as stop:
            self.log.append(f"{stop.status.value}: {stop}")
            errors = {}
            if stop.status == S.INCORRECT_NUMERICAL:
                errors = {"max_abs_error": self.max_abs, "max_rel_error": self.max_rel,
                          "matched_ratio": self.ratio}
            return WorkloadResult(**base, status=stop.status, log=_tail("\n".join(self.log)), **errors)
        except Exception as exc:  # harness-side failure (inputs, stats): still a record, never a crash
            self.log.append(f"harness error: {type(exc).__name__}: {exc}\n{_tail(traceback.format_exc())}")
            return WorkloadResult(**base, status=S.RUNTIME_ERROR, log=_tail("\n".join(self.log)))


def evaluate(request: EvalRequest, device: str = "cpu") -> EvalResult:
    """Evaluate one solution on the request's workloads, in this process.

    Args:
        request: Definition, solution, workloads and harness settings.
        device: ``cpu``, ``cuda`` or ``cuda:N`` (``auto``/None: ``settings.device``, else CUDA if present).

    Returns:
        One :class:`WorkloadResult` per workload (build failures: all ``COMPILE_ERROR``).

    Raises:
        ValueError: Unusable device or unknown evaluator name (request errors, not kernel failures).
    """
    t0 = time.perf_counter()
    defn, sol, settings = request.definition, request.solution, request.settings
    dev = resolve_device(device, settings)
    evaluator = select_evaluator(defn, request.evaluator)
    env = environment.snapshot(dev)
    env["evaluator"] = evaluator.name
    results: list[WorkloadResult] = []
    build_log: list[str] = []
    with torch.no_grad(), (torch.cuda.device(dev) if dev.type == "cuda" else contextlib.nullcontext()):
        fn = None
        try:
            with _captured(build_log):
                fn = build(sol, defn)
            build_log.insert(0, f"built {sol.spec.language.value} solution '{sol.name}' ({sol.hash()[:12]}), "
                                f"entry {sol.spec.entry_point}, dps={sol.spec.destination_passing_style}")
        except BuildError as exc:
            build_log.append(exc.log)
        except Exception as exc:
            build_log.append(f"builder crashed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        log_text = _tail("\n".join(build_log))
        if fn is None:
            results = [WorkloadResult(uuid=w.uuid, axes=dict(w.axes), status=S.COMPILE_ERROR, log=log_text)
                       for w in request.workloads]
        else:
            try:
                ref_fn = load_reference(defn)
            except Exception as exc:  # a broken definition, reported on every workload
                msg = f"reference of {defn.name} cannot be loaded: {type(exc).__name__}: {exc}"
                results = [WorkloadResult(uuid=w.uuid, axes=dict(w.axes), status=S.RUNTIME_ERROR, log=msg)
                           for w in request.workloads]
                ref_fn = None
            for w in request.workloads if ref_fn is not None else []:
                run = _Run(defn, w, fn, ref_fn, sol.spec.destination_passing_style, evaluator, settings, dev)
                results.append(run.result())
    if dev.type == "cuda":
        env["after"] = environment.nvml_readings(dev.index or 0)
    timers = [r.latency.timer for r in results if r.latency is not None]
    return EvalResult(definition=defn.name, solution=sol.name, solution_hash=sol.hash(), results=results,
                      environment=env, timer=timers[0] if timers else None, build_log=log_text,
                      wall_s=time.perf_counter() - t0)
