"""Run harness work in worker processes (see DESIGN.md, "executor/").

Kinds: ``local`` (persistent worker per GPU), ``isolated`` (fresh process per solution x
workload), ``cpu`` (Triton-interpreter workers, GPUs hidden); :func:`make_executor` builds one.
Requests and results cross the process boundary as JSON frames; a timeout becomes ``TIMEOUT``,
a crash ``RUNTIME_ERROR`` with the worker's output tail, and the worker is replaced.
"""

from kernelopt.executor.base import KINDS, Executor, ExecutorError, ProcessExecutor, make_executor
from kernelopt.executor.cpu import CpuExecutor
from kernelopt.executor.devices import visible_gpus
from kernelopt.executor.isolated import IsolatedExecutor
from kernelopt.executor.local import LocalExecutor
from kernelopt.executor.process import WorkerSpec, WorkerStartError
from kernelopt.executor.sandbox import SECRET_PATTERNS, scrub_env

__all__ = [
    "KINDS",
    "SECRET_PATTERNS",
    "CpuExecutor",
    "Executor",
    "ExecutorError",
    "IsolatedExecutor",
    "LocalExecutor",
    "ProcessExecutor",
    "WorkerSpec",
    "WorkerStartError",
    "make_executor",
    "scrub_env",
    "visible_gpus",
]
