"""Device slots and the request loop shared by every process-based executor.

A :class:`Slot` is one lane (one GPU, or one CPU worker): it runs one request at a time, which
is the per-device timing lock. A persistent slot keeps its worker between requests (pinging it
first and replacing it when dead, hung or poisoned); a non-persistent slot starts a fresh worker
for every request. :func:`run_request` drives one request through a slot, resuming the workloads
left after a fault on a fresh worker, so a crash on workload 2 keeps workload 1 and still
evaluates workload 3.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from kernelopt.data.records import EvalRequest, EvalResult
from kernelopt.executor.process import WorkerProcess, WorkerSpec
from kernelopt.executor.results import Fault, fault_result, merge_results, skipped_result

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


class Slot:
    """One device lane.

    Args:
        spec: how to start this lane's worker.
        persistent: keep the worker between requests (``local``/``cpu``) or not (``isolated``).
        ping_timeout_s: health-check budget before reusing a persistent worker.
    """

    def __init__(self, spec: WorkerSpec, persistent: bool, ping_timeout_s: float = 10.0) -> None:
        self.spec = spec
        self.persistent = persistent
        self.ping_timeout_s = ping_timeout_s
        self.worker: WorkerProcess | None = None
        self.started = 0
        self.lock = threading.Lock()
        self._spare: tuple[threading.Thread, dict[str, Any]] | None = None
        self.closed = False

    def _spawn_spare(self) -> None:
        """Start a replacement worker in the background (persistent lanes, after a retirement)."""
        box: dict[str, Any] = {}

        def boot() -> None:
            try:
                box["worker"] = WorkerProcess(self.spec)
            except BaseException as exc:  # noqa: BLE001 - retried synchronously in live_worker
                box["error"] = exc

        thread = threading.Thread(target=boot, name=f"spawn-{self.spec.label}", daemon=True)
        thread.start()
        self._spare = (thread, box)

    def _take_spare(self) -> WorkerProcess | None:
        if self._spare is None:
            return None
        thread, box = self._spare
        self._spare = None
        thread.join()
        return box.get("worker")

    def live_worker(self) -> WorkerProcess:
        """A healthy worker: the kept (or pre-started) one if it answers a ping, else a new one.

        Raises:
            RuntimeError: the executor was closed.
            WorkerStartError: a new worker could not be started.
        """
        if self.closed:
            raise RuntimeError(f"executor lane {self.spec.label} is closed")
        if self.worker is None:
            self.worker = self._take_spare()
            self.started += self.worker is not None
        w = self.worker
        if w is not None and (self.persistent or not w.used) and w.ping(self.ping_timeout_s):
            return w
        if w is not None:
            log.info("worker %s (pid %s) unhealthy or used; replacing", self.spec.label, w.pid)
            w.kill()
            self.worker = None
        self.worker = WorkerProcess(self.spec)
        self.started += 1
        return self.worker

    def retire(self) -> None:
        """Kill the current worker (after a fault, a poisoned context, or single use); a
        persistent lane starts its replacement in the background right away."""
        if self.worker is not None:
            self.worker.kill()
            self.worker = None
            if self.persistent and self._spare is None and not self.closed:
                self._spawn_spare()

    def close(self) -> None:
        """Shut the workers down politely, then kill their process groups; no new ones start."""
        self.closed = True
        spare = self._take_spare()
        for w in (self.worker, spare):
            if w is not None:
                w.shutdown()
        self.worker = None


def run_request(slot: Slot, request: EvalRequest, *, timeout_s: float, max_faults: int,
                kind: str, max_timeouts: int = 1) -> EvalResult:
    """Evaluate ``request`` on ``slot`` (caller holds the slot); never raises for kernel faults.

    Args:
        slot: the lane to use.
        request: the work.
        timeout_s: per-workload limit (build + run).
        max_faults: after this many worker faults (crashes, timeouts) in this request, the
            workloads not yet run get the last fault's status without being attempted.
        kind: executor kind recorded in ``environment["executor"]``.
        max_timeouts: the same limit for timeouts alone (default 1: a hang is usually
            unconditional and each one costs ``timeout_s``).
    """
    t0 = time.monotonic()
    parts: dict[int, EvalResult] = {}
    pending = list(range(len(request.workloads)))
    faults, timeouts, replaced, pids = 0, 0, 0, []
    last: Fault | None = None
    while pending:
        worker = slot.live_worker()
        pids.append(worker.pid)
        sub = request.model_copy(update={"workloads": [request.workloads[i] for i in pending]})
        outcome = worker.run(sub, timeout_s)
        for local, res in outcome.completed:
            parts[pending[local]] = res
        done = {pending[local] for local, _ in outcome.completed}
        if outcome.fault is not None:
            faults += 1
            timeouts += outcome.fault.kind == "timeout"
            last = outcome.fault
            nxt = next(i for i in pending if i not in done)
            parts[nxt] = fault_result(request, request.workloads[nxt], outcome.fault)
            done.add(nxt)
        pending = [i for i in pending if i not in done]
        replaced += outcome.replace
        if outcome.replace or not slot.persistent:
            slot.retire()
        if last is not None and pending and (faults >= max_faults or timeouts >= max_timeouts):
            for i in pending:
                parts[i] = skipped_result(request, request.workloads[i], last, faults)
            pending = []
        elif pending and not outcome.completed and outcome.fault is None:
            raise RuntimeError(f"worker {slot.spec.label} finished a request without answering it")
    info: dict[str, Any] = {"kind": kind, "device": slot.spec.label, "worker_pids": list(dict.fromkeys(pids)),
                            "faults": faults, "replaced_workers": replaced}
    return merge_results(request, [parts[i] for i in range(len(request.workloads))],
                         wall_s=time.monotonic() - t0, executor_info=info)


def _apply(fn: Callable[[Slot, T], R], item: T, slot: Slot) -> R:
    return fn(slot, item)


class SlotPool:
    """Free-slot queue: each job takes any idle slot, so work spreads over all devices."""

    def __init__(self, slots: Sequence[Slot]) -> None:
        if not slots:
            raise ValueError("an executor needs at least one worker slot")
        self.slots = list(slots)
        self._free: queue.Queue[Slot] = queue.Queue()
        for s in self.slots:
            self._free.put(s)

    def run(self, fn: Callable[[Slot], R]) -> R:
        """Call ``fn(slot)`` with an idle slot held exclusively."""
        slot = self._free.get()
        try:
            with slot.lock:
                return fn(slot)
        finally:
            self._free.put(slot)

    def map(self, fn: Callable[[Slot, T], R], items: Sequence[T]) -> list[R]:
        """``fn(slot, item)`` for every item, in parallel over the slots, results in order.

        The first exception (e.g. a worker that cannot start) is re-raised after all threads end.
        """
        results: list[Any] = [None] * len(items)
        errors: list[BaseException] = []
        jobs: queue.Queue[int] = queue.Queue()
        for i in range(len(items)):
            jobs.put(i)

        def lane() -> None:
            while not errors:
                try:
                    i = jobs.get_nowait()
                except queue.Empty:
                    return
                try:
                    results[i] = self.run(functools.partial(_apply, fn, items[i]))
                except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
                    errors.append(exc)

        n = min(len(self.slots), len(items))
        if n <= 1:
            lane()
        else:
            threads = [threading.Thread(target=lane, name=f"executor-lane-{k}") for k in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        if errors:
            raise errors[0]
        return results

    def start_all(self) -> None:
        """Bring every slot's worker up, in parallel; re-raise the first start failure."""
        errors: list[BaseException] = []

        def boot(slot: Slot) -> None:
            try:
                with slot.lock:
                    slot.live_worker()
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                errors.append(exc)

        threads = [threading.Thread(target=boot, args=(s,)) for s in self.slots]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    def __iter__(self) -> Iterator[Slot]:
        return iter(self.slots)

    def close(self) -> None:
        """Close every slot's worker."""
        for s in self.slots:
            s.close()
