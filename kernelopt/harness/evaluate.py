"""``evaluate(request, device)``: build once, then per workload check every trial and time it.

The solution is scanned (static policy) and built once; then each workload is one
:class:`kernelopt.harness.workload_run.WorkloadRun` (every trial checked against the reference, then timed and
re-checked, summarised: mean of trial medians, p95, bootstrap CI, speedup ``ref_mean / sol_mean``). Every kernel
failure becomes a status; nothing escapes but bad requests.

Anti-cheat hooks (REFERENCE §7; settings in :class:`HarnessSettings`): the static policy scan before
the build (``static_policy``); harness-integrity snapshot taken at import, checked after the build
and every call, and restored (``IntegrityGuard``); protected-file fingerprints before the build and
after every workload (``protect_files``); processes left outside the worker's group, killed; and, per workload
(:mod:`kernelopt.harness.workload_run`, :mod:`kernelopt.harness.run_guards`): threads left running by a call
(``check_threads``); the same-address probe after the trials (``same_address_probe``); the outputs of the last
timed call and of one timed call drawn at random re-checked (``recheck_outputs``); the optional fresh-input timing
pass (``replay_check``); the optional tighter precision probe (``precision_probe``); the roofline floor on CUDA
(``roofline_floor``).
"""

from __future__ import annotations

import contextlib
import time
import traceback
from typing import Any

import torch

from kernelopt.data.records import EvalRequest, EvalResult, HarnessSettings, WorkloadResult
from kernelopt.data.trace import EvaluationStatus as S
from kernelopt.harness import environment, processes, protected_files, static_policy
from kernelopt.harness.builders import BuildError, build, build_state
from kernelopt.harness.evaluators import select_evaluator
from kernelopt.harness.guards import IntegrityGuard
from kernelopt.harness.reference import load_reference
from kernelopt.harness.run_guards import captured as _captured
from kernelopt.harness.run_guards import tail as _tail
from kernelopt.harness.workload_run import WorkloadRun
from kernelopt.operators import operator_path


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
    restored = _PRISTINE.restore()  # an earlier candidate of this worker may have patched something
    folder = operator_path(defn.name)
    policy = static_policy.load_policy(folder)  # DataError (a ValueError) names the file and field
    violations = static_policy.check(sol, folder, settings.static_policy)
    protected = (protected_files.protected_roots(defn.name) if settings.protect_files else [])
    before = protected_files.fingerprint(protected)
    env = environment.snapshot(dev)
    env["evaluator"] = evaluator.name
    results: list[WorkloadResult] = []
    profiles: dict[str, Any] = {}  # uuid -> profile (request.profile: passed workloads only)
    build_log: list[str] = []
    with torch.no_grad(), (torch.cuda.device(dev) if dev.type == "cuda" else contextlib.nullcontext()):
        fn, rejected = None, ""
        if restored:
            build_log.append(f"harness functions restored before this evaluation: {restored[:5]}")
        try:
            if violations:
                raise _Rejected("static policy: " + "; ".join(violations[:10]))
            if sol.hash() in _REJECTED_AT_IMPORT:  # its module is cached: the import cannot be re-checked
                raise _Rejected(_REJECTED_AT_IMPORT[sol.hash()] + " (in an earlier evaluation in this worker)")
            with _captured(build_log):
                fn = build(sol, defn)
            tampered = _PRISTINE.restore()
            written = protected_files.changes(before, protected_files.fingerprint(protected))
            if tampered or written:
                _REJECTED_AT_IMPORT[sol.hash()] = (f"harness tampering at import: replaced {tampered[:5]}"
                                                   if tampered else f"wrote to protected files at import: "
                                                   f"{written[:5]}")
                raise _Rejected(_REJECTED_AT_IMPORT[sol.hash()])
            build_log.insert(0, f"built {sol.spec.language.value} solution '{sol.name}' ({sol.hash()[:12]}), "
                                f"entry {sol.spec.entry_point}, dps={sol.spec.destination_passing_style}")
        except _Rejected as exc:
            fn, rejected = None, str(exc)
            build_log.append(f"REJECTED: {exc}")
        except BuildError as exc:
            build_log.append(exc.log)
        except Exception as exc:
            build_log.append(f"builder crashed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        log_text = _tail("\n".join(build_log))
        env["builds"] = build_state(sol.hash())
        if fn is None:
            status = S.REJECTED if rejected else S.COMPILE_ERROR
            results = [WorkloadResult(uuid=w.uuid, axes=dict(w.axes), status=status, log=log_text)
                       for w in request.workloads]
        else:
            try:
                ref_fn = load_reference(defn)
            except Exception as exc:  # a broken definition, reported on every workload
                msg = f"reference of {defn.name} cannot be loaded: {type(exc).__name__}: {exc}"
                results = [WorkloadResult(uuid=w.uuid, axes=dict(w.axes), status=S.RUNTIME_ERROR, log=msg)
                           for w in request.workloads]
                ref_fn = None
            written: list[str] = []
            for w in request.workloads if ref_fn is not None else []:
                if written:  # the checkout is no longer trustworthy for this solution
                    results.append(WorkloadResult(uuid=w.uuid, axes=dict(w.axes), status=S.REJECTED,
                                                  log=f"REJECTED: wrote to protected files: {written[:5]}"))
                    continue
                run = WorkloadRun(defn, w, fn, ref_fn, sol.spec.destination_passing_style, evaluator, settings, dev,
                           _PRISTINE, policy)
                res = run.result()
                written = protected_files.changes(before, protected_files.fingerprint(protected))
                if written:
                    res = res.model_copy(update={"status": S.REJECTED, "log": _tail(
                        res.log + f"\nREJECTED: wrote to protected files: {written[:5]}")})
                escaped = processes.escaped()
                if escaped:  # killed now: the executor's killpg would never reach them
                    killed = processes.describe(processes.kill_escaped(escaped))
                    res = res.model_copy(update={"status": S.REJECTED, "latency": None, "log": _tail(
                        res.log + f"\nREJECTED: left processes running outside the worker's process group "
                                  f"(killed): {killed}")})
                if request.profile and res.passed and not written:
                    profiles[w.uuid] = run.profile(request)
                results.append(res)
                _PRISTINE.restore()
    if dev.type == "cuda":
        env["after"] = environment.nvml_readings(dev.index or 0)
    timers = [r.latency.timer for r in results if r.latency is not None]
    profile = {"workloads": profiles} if request.profile else None
    return EvalResult(definition=defn.name, solution=sol.name, solution_hash=sol.hash(), results=results,
                      environment=env, timer=timers[0] if timers else None, build_log=log_text,
                      wall_s=time.perf_counter() - t0, profile=profile)


class _Rejected(Exception):
    """The solution is rejected before any workload runs (static policy, tampering at import)."""


#: Solutions (by hash) rejected for what their import did, in this process.
_REJECTED_AT_IMPORT: dict[str, str] = {}

#: Identity snapshot of the harness functions, taken when the harness is imported (before any
#: candidate code): checked after every build and call, and restored before every evaluation.
_PRISTINE = IntegrityGuard()
