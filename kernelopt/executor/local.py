"""``local`` executor: one persistent worker per visible GPU."""

from __future__ import annotations

import os
from collections.abc import Sequence

from kernelopt.executor.base import ExecutorError, ProcessExecutor
from kernelopt.executor.devices import resolve_devices
from kernelopt.executor.process import WorkerSpec


def gpu_specs(devices: Sequence[int | str] | None = None, *, memory_limit_gb: float | None = None,
              target: str | None = None, env: dict[str, str] | None = None,
              startup_timeout_s: float = 180.0) -> list[WorkerSpec]:
    """One worker spec per selected GPU; each worker sees only its GPU (as ``cuda:0``). GPUs are
    numbered in PCI bus order (as nvidia-smi and NVML do) unless ``CUDA_DEVICE_ORDER`` says otherwise.

    Raises:
        ExecutorError: no GPU is visible, or a selected index does not exist.
    """
    try:
        pairs = resolve_devices(devices)
    except ValueError as exc:
        raise ExecutorError(str(exc)) from None
    if not pairs:
        raise ExecutorError("executor: no CUDA GPU is visible (CUDA_VISIBLE_DEVICES / nvidia-smi); "
                            "use executor kind 'cpu' on this machine")
    return [
        WorkerSpec(device="cuda:0", label=f"cuda:{logical}",
                   env={"CUDA_DEVICE_ORDER": os.environ.get("CUDA_DEVICE_ORDER", "PCI_BUS_ID"), **(env or {}),
                        "CUDA_VISIBLE_DEVICES": physical},
                   memory_limit_gb=memory_limit_gb, target=target, startup_timeout_s=startup_timeout_s)
        for logical, physical in pairs
    ]


class LocalExecutor(ProcessExecutor):
    """Persistent worker per GPU: health-checked before each request, replaced after a crash,
    a timeout or a CUDA error that may have poisoned its context. ``evaluate_many`` runs one
    request per GPU at a time, in parallel across GPUs.

    Args:
        devices: logical GPU indices (None: all visible).
        timeout_s: per-workload timeout overriding ``request.settings.timeout_s``.
        memory_limit_gb: ``RLIMIT_AS`` for workers (default None: CUDA maps huge virtual ranges).
        target: harness function ``module:function`` (default the real harness).
        env: extra worker environment.
        max_faults: worker faults (crashes, timeouts) per request before the rest is skipped.
        max_timeouts: timeouts per request before the rest is skipped.
    """

    kind = "local"

    def __init__(self, devices: Sequence[int | str] | None = None, *, timeout_s: float | None = None,
                 memory_limit_gb: float | None = None, target: str | None = None,
                 env: dict[str, str] | None = None, max_faults: int = 3,
                 max_timeouts: int = 1) -> None:
        specs = gpu_specs(devices, memory_limit_gb=memory_limit_gb, target=target, env=env)
        super().__init__(specs, persistent=True, timeout_s=timeout_s, max_faults=max_faults,
                         max_timeouts=max_timeouts)
