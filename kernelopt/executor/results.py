"""Building EvalResults on the executor side: fault verdicts and merging per-workload parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kernelopt.data.records import WORKER_OUTPUT_MARK, EvalRequest, EvalResult, WorkloadResult
from kernelopt.data.trace import EvaluationStatus
from kernelopt.data.workload import Workload

#: Substrings (lower-case) of errors after which a worker cannot be trusted: a CUDA context that may be
#: poisoned, or device memory exhausted (the candidate's module may keep its allocations alive in the
#: persistent worker, so the next workloads would fail too).
POISON_PATTERNS: tuple[str, ...] = (
    "illegal memory access", "cuda error", "device-side assert", "unspecified launch failure",
    "misaligned address", "illegal instruction", "cudaerrorlaunchfailure", "cublas_status_execution_failed",
    "cuda_error_", "an illegal memory", "hardware exception", "uncorrectable ecc", "out of memory",
)

_OUTPUT_HEADER = f"\n{WORKER_OUTPUT_MARK}\n"


@dataclass
class Fault:
    """A worker that did not answer: it timed out, crashed or broke the protocol."""

    kind: Literal["timeout", "crash", "protocol"]
    message: str
    output: str = ""

    @property
    def status(self) -> EvaluationStatus:
        """TIMEOUT for a timeout, RUNTIME_ERROR otherwise."""
        return EvaluationStatus.TIMEOUT if self.kind == "timeout" else EvaluationStatus.RUNTIME_ERROR


def looks_poisoned(result: EvalResult) -> bool:
    """True when a failed workload's log shows a CUDA error that may poison the context."""
    for r in result.results:
        if r.status != EvaluationStatus.PASSED:
            low = r.log.lower()
            if any(p in low for p in POISON_PATTERNS):
                return True
    return False


def with_output(log: str, output: str) -> str:
    """Append a worker-output tail to a log (nothing when the output is blank)."""
    if not output.strip():
        return log
    return f"{log}{_OUTPUT_HEADER}{output}" if log else f"{_OUTPUT_HEADER.lstrip()}{output}"


def attach_output(result: EvalResult, output: str) -> EvalResult:
    """Add the worker's output to every non-passing workload's log (passing ones stay terse)."""
    if not output.strip():
        return result
    rs = [r if r.passed else r.model_copy(update={"log": with_output(r.log, output)}) for r in result.results]
    return result.model_copy(update={"results": rs})


def workload_failure(request: EvalRequest, workload: Workload, status: EvaluationStatus, log: str,
                     extra: dict[str, Any] | None = None) -> EvalResult:
    """A one-workload EvalResult carrying a failure the harness could not report itself."""
    wr = WorkloadResult(uuid=workload.uuid, axes=dict(workload.axes), status=status, log=log,
                        extra=extra or {})
    return EvalResult(definition=request.definition.name, solution=request.solution.name,
                      solution_hash=request.solution.hash(), results=[wr])


def fault_result(request: EvalRequest, workload: Workload, fault: Fault) -> EvalResult:
    """The verdict for the workload a worker was running when it faulted."""
    return workload_failure(request, workload, fault.status, with_output(fault.message, fault.output),
                            extra={"executor_fault": fault.kind})


def skipped_result(request: EvalRequest, workload: Workload, fault: Fault, faults: int) -> EvalResult:
    """The verdict for a workload not attempted after too many worker faults in one request."""
    log = (f"not run: the worker faulted {faults} time(s) on this solution; last fault "
           f"({fault.kind}): {fault.message}")
    return workload_failure(request, workload, fault.status, log, extra={"executor_fault": "skipped"})


def _merge_profiles(parts: list[EvalResult]) -> dict[str, Any] | None:
    """The parts' ``profile["workloads"]`` maps (uuid -> profile) merged into one."""
    profs = [p.profile for p in parts if p.profile is not None]
    if not profs:
        return None
    merged: dict[str, Any] = {}
    for prof in profs:
        merged.update(prof.get("workloads") or {})
    return {"workloads": merged}


def merge_results(request: EvalRequest, parts: list[EvalResult], *, wall_s: float,
                  executor_info: dict[str, Any]) -> EvalResult:
    """One EvalResult for ``request`` from one-workload parts (``parts[i]`` answers workload i).

    Environment and timer come from the first part the harness produced (fault parts carry
    none); distinct build logs are concatenated; ``wall_s`` is the executor-side wall time;
    ``environment["executor"]`` records how the work ran (kind, devices, restarts).
    """
    if len(parts) != len(request.workloads):
        raise RuntimeError(f"internal error: {len(parts)} parts for {len(request.workloads)} workloads")
    results: list[WorkloadResult] = []
    for w, p in zip(request.workloads, parts):
        match = [r for r in p.results if r.uuid == w.uuid]
        if len(match) != 1:
            raise RuntimeError(f"internal error: {len(match)} results for workload {w.uuid}")
        results.append(match[0])
    env: dict[str, Any] = next((dict(p.environment) for p in parts if p.environment), {})
    env["executor"] = executor_info
    logs = list(dict.fromkeys(p.build_log for p in parts if p.build_log))
    return EvalResult(
        definition=request.definition.name,
        solution=request.solution.name,
        solution_hash=request.solution.hash(),
        results=results,
        environment=env,
        timer=next((p.timer for p in parts if p.timer is not None), None),
        build_log="\n".join(logs),
        wall_s=wall_s,
        profile=_merge_profiles(parts),
    )
