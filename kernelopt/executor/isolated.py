"""``isolated`` executor: a fresh worker process per (solution x workload), as the official
evaluator's isolated runner does. Slower than ``local`` (a process start per workload) but no
state, cache or poisoned context can leak from one workload into the next."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernelopt.data.records import EvalRequest, EvalResult
from kernelopt.executor.base import ProcessExecutor
from kernelopt.executor.cpu import DEFAULT_CPU_MEMORY_GB, cpu_specs
from kernelopt.executor.devices import visible_gpus
from kernelopt.executor.local import gpu_specs
from kernelopt.executor.pool import Slot
from kernelopt.executor.results import merge_results


class IsolatedExecutor(ProcessExecutor):
    """Fresh process per workload; workloads spread over all lanes in parallel.

    Args:
        devices: logical GPU indices (None: all visible GPUs).
        cpu: run on CPU workers (Triton interpreter); None: CPU only when no GPU is visible.
        workers: number of CPU lanes when ``cpu``.
        timeout_s: per-workload timeout (the whole child: start-up excluded, build + run
            included), overriding ``request.settings.timeout_s``.
        memory_limit_gb: ``RLIMIT_AS`` per worker; "default" = 16 GB on CPU, none on GPU.
        target: harness function ``module:function`` (default the real harness).
        env: extra worker environment.
    """

    kind = "isolated"

    def __init__(self, devices: Sequence[int | str] | None = None, *, cpu: bool | None = None,
                 workers: int = 1, timeout_s: float | None = None,
                 memory_limit_gb: float | None | str = "default", target: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        if cpu is None:
            cpu = devices is None and not visible_gpus()
        if cpu:
            mem = DEFAULT_CPU_MEMORY_GB if memory_limit_gb == "default" else memory_limit_gb
            specs = cpu_specs(workers, memory_limit_gb=mem, target=target, env=env)  # type: ignore[arg-type]
        else:
            mem = None if memory_limit_gb == "default" else memory_limit_gb
            specs = gpu_specs(devices, memory_limit_gb=mem, target=target, env=env)  # type: ignore[arg-type]
        super().__init__(specs, persistent=False, timeout_s=timeout_s, max_faults=1)

    def evaluate(self, request: EvalRequest) -> EvalResult:
        """Evaluate one request, one fresh process per workload (in parallel over lanes)."""
        return self.evaluate_many([request])[0]

    def evaluate_many(self, requests: Sequence[EvalRequest]) -> list[EvalResult]:
        """Every (request, workload) pair in its own fresh process; results in request order."""
        reqs = list(requests)
        units = [(ri, wi) for ri, r in enumerate(reqs) for wi in range(len(r.workloads))]

        def one(slot: Slot, unit: tuple[int, int]) -> EvalResult:
            ri, wi = unit
            sub = reqs[ri].model_copy(update={"workloads": [reqs[ri].workloads[wi]]})
            return self._run(slot, sub)

        parts = self.pool.map(one, units)
        out: list[EvalResult] = []
        k = 0
        for r in reqs:
            mine = parts[k:k + len(r.workloads)]
            k += len(r.workloads)
            infos = [p.environment.get("executor", {}) for p in mine]
            info: dict[str, Any] = {
                "kind": self.kind,
                "device": ",".join(dict.fromkeys(str(i.get("device")) for i in infos)),
                "worker_pids": [pid for i in infos for pid in i.get("worker_pids", [])],
                "faults": sum(int(i.get("faults", 0)) for i in infos),
                "replaced_workers": sum(int(i.get("replaced_workers", 0)) for i in infos),
            }
            out.append(merge_results(r, mine, wall_s=sum(p.wall_s for p in mine), executor_info=info))
        return out
