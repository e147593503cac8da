"""``cpu`` executor: persistent workers that run Triton kernels in the interpreter, GPUs hidden."""

from __future__ import annotations

from kernelopt.executor.base import ExecutorError, ProcessExecutor
from kernelopt.executor.process import WorkerSpec

#: Environment that makes a worker CPU-only: Triton interpreter on, no GPU visible.
CPU_ENV: dict[str, str] = {"TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""}

DEFAULT_CPU_MEMORY_GB = 16.0


def cpu_specs(workers: int = 1, *, memory_limit_gb: float | None = DEFAULT_CPU_MEMORY_GB,
              target: str | None = None, env: dict[str, str] | None = None,
              startup_timeout_s: float = 180.0) -> list[WorkerSpec]:
    """``workers`` CPU worker specs (device ``cpu``, ``TRITON_INTERPRET=1``, GPUs hidden)."""
    if workers < 1:
        raise ExecutorError(f"cpu executor: workers must be >= 1, got {workers}")
    return [
        WorkerSpec(device="cpu", label="cpu" if workers == 1 else f"cpu{k}", env={**(env or {}), **CPU_ENV},
                   memory_limit_gb=memory_limit_gb, target=target, startup_timeout_s=startup_timeout_s)
        for k in range(workers)
    ]


class CpuExecutor(ProcessExecutor):
    """Like ``local`` but on the CPU: for machines without a GPU and for tests.

    Args:
        workers: number of persistent CPU workers (parallel lanes).
        timeout_s: per-workload timeout overriding ``request.settings.timeout_s``.
        memory_limit_gb: ``RLIMIT_AS`` per worker (default 16 GB; None disables).
        target: harness function ``module:function`` (default the real harness).
        env: extra worker environment.
        max_faults: worker faults (crashes, timeouts) per request before the rest is skipped.
        max_timeouts: timeouts per request before the rest is skipped.
    """

    kind = "cpu"

    def __init__(self, workers: int = 1, *, timeout_s: float | None = None,
                 memory_limit_gb: float | None = DEFAULT_CPU_MEMORY_GB, target: str | None = None,
                 env: dict[str, str] | None = None, max_faults: int = 3,
                 max_timeouts: int = 1) -> None:
        specs = cpu_specs(workers, memory_limit_gb=memory_limit_gb, target=target, env=env)
        super().__init__(specs, persistent=True, timeout_s=timeout_s, max_faults=max_faults,
                         max_timeouts=max_timeouts)
