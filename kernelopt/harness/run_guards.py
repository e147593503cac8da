"""Anti-cheat steps of one (solution, workload) run, mixed into
:class:`kernelopt.harness.workload_run.WorkloadRun`.

* ``_guard_after_call``: harness integrity (replaced functions are restored), input mutation and
  threads left running, after every checked or timed call.
* ``_precision_probe``: the operator policy's tighter tolerance (``settings.precision_probe``).
* ``_compare``: outputs of a guard call against the reference (failure: ``REJECTED`` naming the guard).
* ``_same_address_probe``: new values in the same input tensors, one call (``same_address_probe``).
* ``_fresh_pass``: fresh values every timed call, every output checked (``replay_check``).
* ``_roofline``: CUDA latency below bytes / datasheet bandwidth (``roofline_floor``).
"""

from __future__ import annotations

import contextlib
import io
import traceback
from collections.abc import Callable
from typing import Any

import torch

from kernelopt.data.trace import EvaluationStatus as S
from kernelopt.harness import replay, roofline_floor
from kernelopt.harness.correctness import error_stats
from kernelopt.harness.evaluators import OutputFormatError
from kernelopt.harness.guards import InputGuard, ThreadWatch, output_problems
from kernelopt.harness.inputs import make_inputs
from kernelopt.harness.sealed import scrub
from kernelopt.harness.timing import _flush_buffer

LOG_LIMIT = 20_000


class Stop(Exception):
    """Ends a workload with a status (raised inside a run)."""

    def __init__(self, status: S, message: str) -> None:
        super().__init__(message)
        self.status = status


def tail(text: str, limit: int = LOG_LIMIT) -> str:
    """The last ``limit`` characters of ``text`` (marked when cut)."""
    return text if len(text) <= limit else "[... truncated ...]\n" + text[-limit:]


@contextlib.contextmanager
def captured(sink: list[str]):
    """Capture Python-level stdout/stderr of solution code into ``sink`` (bounded)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            yield
        finally:
            text = buf.getvalue()
            if text:  # one bounded segment per log, however many calls printed
                head = "[solution output]\n"
                earlier = [i for i, line in enumerate(sink) if line.startswith(head)]
                if earlier:
                    text = sink.pop(earlier[-1])[len(head):] + text
                sink.append(head + tail(text, 4_000))


class LastValue:
    """Calls ``fn`` and keeps its last return value (for the re-check after timing)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.value = fn, None

    def __call__(self, *args: Any) -> Any:
        self.value = self.fn(*args)
        return self.value


class GuardedRun:
    """Guard steps; the host class provides ``definition, workload, fn, dps, evaluator, settings,
    device, integrity, policy, log, extra`` and the ``_call`` / ``_reference`` methods."""

    def _guard_after_call(self, guard: InputGuard, inputs: dict[str, Any], when: str,
                          threads: ThreadWatch | None = None, timed: bool = False) -> None:
        """Integrity, threads and input mutation after a call. Threads a checked (untimed) call
        leaves behind are only remembered (``torch.compile`` keeps an idle pool thread); during
        timed calls, new threads left running or remembered ones burning CPU are REJECTED."""
        tampered = self.integrity.tampered()
        if tampered:
            self.integrity.restore()
            raise Stop(S.REJECTED, f"harness tampering {when}: replaced {tampered[:5]}")
        if threads is not None and self.settings.check_threads:
            if not timed:
                new = [t for t in threads.new_threads() if t.ident not in self.solution_threads]
                if new:
                    self.solution_threads.update(t.ident for t in new if t.ident is not None)
                    self.log.append(f"note: threads left running {when}: {[t.name for t in new][:5]} (watched "
                                    "during timing)")
            else:
                spawned, busy = threads.spawned(), threads.busy()
                if spawned:
                    raise Stop(S.REJECTED, f"spawned threads {when}: {spawned[:5]} still running after the "
                               "call returned (work outside the timed window)")
                if busy:
                    raise Stop(S.REJECTED, f"threads the solution started earlier worked {when}: {busy[:5]} "
                               "(work outside the timed window)")
        if self.settings.check_input_mutation:
            changed = guard.mutated(inputs)
            if changed:
                raise Stop(S.REJECTED, f"input mutation {when}: {', '.join(changed)}")

    def _precision_probe(self, outs: list[Any], refs: Any, when: str) -> None:
        """The policy's tighter tolerance (``settings.precision_probe``) on float outputs."""
        probe = self.policy.precision_probe
        if not (self.settings.precision_probe and probe):
            return
        ref_list = [refs.get(n) for n in self.definition.outputs] if isinstance(refs, dict) else list(refs)
        for name, o, r in zip(self.definition.outputs, outs, ref_list):
            if not (isinstance(o, torch.Tensor) and o.is_floating_point() and isinstance(r, torch.Tensor)):
                continue
            st = error_stats(o, r, probe.get("atol", 0.0), probe.get("rtol", 0.0),
                             probe.get("required_matched_ratio", 1.0))
            if st.failed:
                raise Stop(S.REJECTED, f"precision probe {when}: output '{name}' matched {st.matched_ratio:.4f} "
                            f"< {probe.get('required_matched_ratio', 1.0)} at the policy's tighter tolerance "
                            f"{probe} (max abs {st.max_abs:.3g}, max rel {st.max_rel:.3g}; {self.policy.source})"
                            " - lower precision than the definition computes in?")

    def _compare(self, guard_inputs: dict[str, Any], outs: list[Any], refs: list[Any], what: str) -> None:
        """Outputs of a guard call against the reference; failure is REJECTED naming ``what``."""
        problems = output_problems(list(self.definition.outputs), outs, self.device)
        if problems:
            raise Stop(S.REJECTED, f"{what}: " + "; ".join(problems))
        shared = _shares_storage(outs, refs)
        if shared:  # the reference's own tensor, found by walking the caller's frames: compared with itself
            raise Stop(S.REJECTED, f"{what}: output '{shared}' is the harness's reference tensor (shares its "
                                   "storage), not one the solution computed")
        v = self.evaluator.check(self.definition, guard_inputs, outs, refs, self.settings)
        if v.status is not None:
            raise Stop(S.REJECTED, f"{what}: {v.status.value}: {v.message}")

    def _check_value(self, guard_inputs: dict[str, Any], value: Any, refs: list[Any], what: str,
                     where: str) -> None:
        """A call's outputs (DPS: the output tensors; else its returned value, normalised) against the reference
        (:meth:`_compare`, naming ``what``); a returned value of the wrong form is REJECTED naming ``where``."""
        try:
            final = value if self.dps else self.evaluator.normalize(self.definition, value, self.device)
        except OutputFormatError as exc:
            raise Stop(S.REJECTED, f"{where}: {exc}") from None
        self._compare(guard_inputs, final, refs, what)

    def _same_address_probe(self, inputs: dict[str, Any], guard: InputGuard) -> None:
        """New values written into the last trial's input tensors, one call, compared, restored."""
        seed = self.settings.seed + self.settings.trials + 7919
        fresh = self._inputs(seed)
        replay.refill_(inputs, fresh)
        probe_guard = InputGuard(inputs)
        outs = self._call(inputs, probe_guard, "in the same-address probe")
        sealed = self._reference(probe_guard, seed)
        replay.refill_(inputs, guard.copies)
        with sealed.opened() as refs:
            self._compare(probe_guard.copies, outs, refs, "stale output in the same-address probe (new values in "
                          "the same input tensors; output cached by input address/shape or left from the "
                          "previous call?)")

    def _fresh_pass(self, inputs: dict[str, Any], guard: InputGuard, outs: list[Any], timer: str,
                    t: int) -> list[float]:
        """Fresh values every timed call; every call's outputs checked; the trial's inputs restored."""
        s = self.settings
        one = make_inputs(self.definition, self.workload, device=self.device, seed=s.seed + 10_000 * (t + 1))
        n = replay.fresh_set_count(s.iterations, replay.input_bytes(one))
        sets = [one] + [make_inputs(self.definition, self.workload, device=self.device,
                                    seed=s.seed + 10_000 * (t + 1) + i) for i in range(1, n)]
        flush = _flush_buffer(self.device).zero_ if (self.device.type == "cuda" and s.flush_l2) else None
        threads = ThreadWatch(self.solution_threads)
        try:
            with captured(self.log):
                res = replay.fresh_input_pass(self.fn, inputs, sets, outs, s.iterations, self.device, timer, flush)
        except Exception as exc:  # noqa: BLE001 - any solution failure is a status
            raise Stop(S.RUNTIME_ERROR, f"fresh-input timing failed: {type(exc).__name__}: {exc}\n"
                        + tail(traceback.format_exc())) from None
        finally:
            replay.refill_(inputs, guard.copies)
        self._guard_after_call(guard, inputs, "during fresh-input timing", threads, timed=True)
        # the candidate's calls are over: each set's reference is opened once, compared with every call on that set,
        # and scrubbed at the end
        refs: dict[int, tuple[dict[str, Any], Any]] = {}
        try:
            for i, (k, value) in enumerate(zip(res.set_index, res.outputs)):
                if k not in refs:
                    g = InputGuard(sets[k])
                    refs[k] = (g.copies, self._reference(g).open())
                self._check_value(refs[k][0], value, refs[k][1], f"replay: fresh-input call {i} of trial {t} "
                                  "(outputs cached across calls?)", f"fresh-input call {i}")
        finally:
            for _, ref in refs.values():
                scrub(ref)
        return res.times_ms

    def _roofline(self, mean_ms: float) -> None:
        if not (self.settings.roofline_floor and self.device.type == "cuda"):
            return
        peak = roofline_floor.device_peak_bandwidth(self.device)
        if peak is None:
            return
        floor = roofline_floor.roofline_floor_ms(self.definition, dict(self.workload.axes), peak,
                                                 self.policy.roofline_inputs)
        self.extra["roofline_floor_ms"] = floor
        reason = roofline_floor.below_floor(mean_ms, floor)
        if reason:
            raise Stop(S.REJECTED, reason)


def _shares_storage(outs: list[Any], refs: Any) -> str | None:
    """The index of an output tensor whose storage is a reference output's (``None`` when none is)."""
    ref_list = list(refs.values()) if isinstance(refs, dict) else list(refs) if isinstance(refs, (list, tuple)) \
        else [refs]
    held = {r.untyped_storage().data_ptr() for r in ref_list if isinstance(r, torch.Tensor) and r.numel()}
    for i, o in enumerate(outs):
        if isinstance(o, torch.Tensor) and o.numel() and o.untyped_storage().data_ptr() in held:
            return str(i)
    return None
