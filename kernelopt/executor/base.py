"""The Executor protocol, the process-pool executor they share, and :func:`make_executor`."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from kernelopt.data.records import EvalRequest, EvalResult
from kernelopt.executor.pool import Slot, SlotPool, run_request
from kernelopt.executor.process import WorkerSpec

ExecutorKind = Literal["auto", "local", "isolated", "cpu", "ray"]
KINDS: tuple[str, ...] = ("auto", "local", "isolated", "cpu", "ray")


class ExecutorError(RuntimeError):
    """The executor cannot do what was asked (no GPU for ``local``, unknown kind...)."""


@runtime_checkable
class Executor(Protocol):
    """Runs harness work somewhere; kernel failures come back as statuses, never exceptions."""

    def evaluate(self, request: EvalRequest) -> EvalResult:
        """Evaluate one request."""
        ...

    def evaluate_many(self, requests: Sequence[EvalRequest]) -> list[EvalResult]:
        """Evaluate several requests (possibly in parallel); results in request order."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


def _close_pool(pool: SlotPool) -> None:
    pool.close()


class ProcessExecutor:
    """Executor over worker subprocesses, one :class:`Slot` per spec.

    Args:
        specs: one worker spec per lane (device).
        persistent: keep workers between requests.
        timeout_s: per-workload limit overriding ``request.settings.timeout_s`` when set.
        max_faults: worker faults (crashes, timeouts) per request before the rest is skipped.
        max_timeouts: timeouts per request before the rest is skipped (default 1).
        ping_timeout_s: health-check budget for a kept worker.

    A fault costs only the workload it hit: the workloads after it resume on a fresh worker,
    until ``max_faults`` faults or ``max_timeouts`` timeouts, after which the rest get the last
    fault's status without running.
    """

    kind = "process"

    def __init__(self, specs: Sequence[WorkerSpec], *, persistent: bool, timeout_s: float | None = None,
                 max_faults: int = 3, max_timeouts: int = 1, ping_timeout_s: float = 10.0) -> None:
        if timeout_s is not None and timeout_s <= 0:
            raise ExecutorError(f"executor timeout_s must be > 0, got {timeout_s}")
        if max_faults < 1 or max_timeouts < 1:
            raise ExecutorError(f"executor max_faults and max_timeouts must be >= 1, got {max_faults}, "
                                f"{max_timeouts}")
        self.timeout_s = timeout_s
        self.max_faults = max_faults
        self.max_timeouts = max_timeouts
        self.pool = SlotPool([Slot(s, persistent, ping_timeout_s) for s in specs])
        self._finalizer = weakref.finalize(self, _close_pool, self.pool)

    @property
    def devices(self) -> list[str]:
        """Labels of the lanes ("cuda:0", "cpu"...)."""
        return [s.spec.label for s in self.pool]

    @property
    def has_gpu(self) -> bool:
        """Whether a lane evaluates on a GPU."""
        return any(s.spec.device.startswith("cuda") for s in self.pool)

    def measure_ceilings(self, timeout_s: float) -> tuple[dict[str, Any] | None, str] | None:
        """The roofline's ceilings of the first GPU lane's device, measured in a child process that sees the same GPU
        (the lane's ``CUDA_VISIBLE_DEVICES``): ``(ceilings, "")`` or ``(None, why)``; None without a GPU lane."""
        env = next((dict(s.spec.env) for s in self.pool if s.spec.device.startswith("cuda")), None)
        if env is None:
            return None
        from kernelopt.harness.ceilings import measure_in_child

        return measure_in_child(env, timeout_s)

    @property
    def num_workers(self) -> int:
        """Number of lanes that run requests in parallel."""
        return len(self.pool.slots)

    def timeout_for(self, request: EvalRequest) -> float:
        """The effective per-workload timeout for ``request``."""
        return self.timeout_s if self.timeout_s is not None else request.settings.timeout_s

    def _run(self, slot: Slot, request: EvalRequest) -> EvalResult:
        return run_request(slot, request, timeout_s=self.timeout_for(request), max_faults=self.max_faults,
                           max_timeouts=self.max_timeouts, kind=self.kind)

    def evaluate(self, request: EvalRequest) -> EvalResult:
        """Evaluate one request on the next idle lane."""
        return self.pool.run(lambda slot: self._run(slot, request))

    def evaluate_many(self, requests: Sequence[EvalRequest]) -> list[EvalResult]:
        """Spread requests over all lanes (one thread per lane); results in order."""
        return self.pool.map(self._run, list(requests))

    def start(self) -> ProcessExecutor:
        """Start every lane's worker now instead of on first use (raises if one cannot start)."""
        self.pool.start_all()
        return self

    def close(self) -> None:
        """Stop every worker (and its process group)."""
        self._finalizer()

    def __enter__(self) -> ProcessExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_executor(kind: ExecutorKind | str = "auto", *, devices: Sequence[int | str] | int | None = None,
                  timeout_s: float | None = None, **options: Any) -> Executor:
    """Build an executor.

    Args:
        kind: ``local`` (persistent worker per GPU), ``isolated`` (fresh process per solution x
            workload, GPUs when present else CPU), ``cpu`` (Triton interpreter workers) or
            ``auto`` (``local`` when a GPU is visible, else ``cpu``), ``ray`` (actors on a Ray
            cluster, one GPU each; ``address=`` joins a cluster, none starts a local one).
        devices: GPU indices for ``local``/``isolated``; for ``cpu`` a worker count or a list
            whose length is the worker count; for ``ray`` the actor count the same way.
        timeout_s: per-workload timeout overriding the request's ``settings.timeout_s``.
        **options: passed to the executor class (``memory_limit_gb``, ``target``, ``max_faults``...).

    Raises:
        ExecutorError: unknown kind, or ``local`` without a GPU.
    """
    from kernelopt.executor.cpu import CpuExecutor
    from kernelopt.executor.devices import visible_gpus
    from kernelopt.executor.isolated import IsolatedExecutor
    from kernelopt.executor.local import LocalExecutor

    if kind not in KINDS:
        raise ExecutorError(f"executor kind {kind!r} is unknown; choose one of {', '.join(KINDS)}")
    if kind == "auto":
        kind = "local" if visible_gpus() else "cpu"
    if kind == "ray":
        from kernelopt.executor.ray_executor import RayExecutor

        count = devices if isinstance(devices, int) else (len(devices) if devices else None)
        return RayExecutor(workers=count, timeout_s=timeout_s, **options)
    if kind == "cpu":
        workers = devices if isinstance(devices, int) else (len(devices) if devices else 1)
        return CpuExecutor(workers=workers, timeout_s=timeout_s, **options)
    if isinstance(devices, int):
        devices = list(range(devices))
    if kind == "local":
        return LocalExecutor(devices=devices, timeout_s=timeout_s, **options)
    return IsolatedExecutor(devices=devices, timeout_s=timeout_s, **options)
