"""One worker subprocess: spawn, handshake, ping, run a request with a deadline, kill.

Workers are started with ``subprocess.Popen([sys.executable, "-m", "kernelopt.executor.worker"])``
in a new session (so ``killpg`` takes any children a candidate spawned), a scrubbed environment,
a fresh scratch directory as cwd and ``TMPDIR`` (deleted with the worker), stdin from /dev/null, fd 1/2 into a bounded :class:`LogTail`, and two
dedicated pipes for the frame protocol.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from kernelopt.data.records import EvalRequest, EvalResult
from kernelopt.data.trace import EvaluationStatus
from kernelopt.executor import netns, readonly_mounts
from kernelopt.executor.logtail import DEFAULT_CAP, LogTail
from kernelopt.executor.protocol import (
    FrameReader,
    FrameTimeout,
    ProtocolError,
    request_to_wire,
    result_from_wire,
    write_frame,
)
from kernelopt.executor.results import Fault, attach_output, looks_poisoned, with_output, workload_failure
from kernelopt.executor.sandbox import make_scratch_dir, remove_scratch_dir, worker_env


class WorkerStartError(RuntimeError):
    """A worker could not be started (broken install, harness import error): not a kernel fault."""


@dataclass(frozen=True)
class WorkerSpec:
    """How to start a worker.

    Attributes:
        device: device string the harness gets inside the worker ("cpu", "cuda:0").
        label: name for messages (e.g. the physical GPU "cuda:3").
        env: extra environment (``CUDA_VISIBLE_DEVICES``, ``TRITON_INTERPRET``...).
        memory_limit_gb: ``RLIMIT_AS`` cap inside the worker, None for none.
        target: harness function ``module:function`` (None: the worker's default).
        startup_timeout_s: seconds allowed for imports and the READY frame.
        log_cap_bytes: output kept per workload segment.
    """

    device: str
    label: str
    env: dict[str, str] = field(default_factory=dict)
    memory_limit_gb: float | None = None
    target: str | None = None
    startup_timeout_s: float = 180.0
    log_cap_bytes: int = DEFAULT_CAP


@dataclass
class RunOutcome:
    """What one ``WorkerProcess.run`` produced: per-workload results (by index into the
    request's workloads, in completion order), a fault for the next workload if any, and
    whether the worker must be replaced."""

    completed: list[tuple[int, EvalResult]] = field(default_factory=list)
    fault: Fault | None = None
    replace: bool = False


def describe_exit(returncode: int | None) -> str:
    """Human-readable exit status ("exit code 3", "signal SIGSEGV (11)")."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown"
        return f"killed by signal {name} ({-returncode})"
    return f"exit code {returncode}"


class WorkerProcess:
    """A live worker; raises :class:`WorkerStartError` if it does not come up."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.token = secrets.token_hex(8)
        self.scratch = make_scratch_dir()
        req_r, self._req_w = os.pipe()
        res_r, res_w = os.pipe()
        log_r, log_w = os.pipe()
        cmd = [sys.executable, "-m", "kernelopt.executor.worker", "--in-fd", str(req_r),
               "--out-fd", str(res_w), "--device", spec.device, "--token", self.token]
        if spec.target:
            cmd += ["--target", spec.target]
        if spec.memory_limit_gb is not None:
            cmd += ["--memory-limit-gb", str(spec.memory_limit_gb)]
        try:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log_w, stderr=log_w, pass_fds=(req_r, res_w),
                cwd=self.scratch, env=worker_env({"TMPDIR": self.scratch, **spec.env}), start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            for fd in (req_r, self._req_w, res_r, res_w, log_r, log_w):
                os.close(fd)
            remove_scratch_dir(self.scratch)
            raise WorkerStartError(f"cannot start a worker for {spec.label}: {exc}") from exc
        for fd in (req_r, res_w, log_w):
            os.close(fd)
        os.set_blocking(self._req_w, False)
        self.pid = self.proc.pid
        self.log = LogTail(log_r, self.token, spec.log_cap_bytes)
        self._reader = FrameReader(res_r)
        self._closed = False
        self.used = False
        self.network = "unknown"  # the worker's network sandbox, from its READY frame
        self.files = "unknown"  # and its read-only mounts
        self._handshake()

    # ------------------------------------------------------------ lifecycle
    def _handshake(self) -> None:
        deadline = time.monotonic() + self.spec.startup_timeout_s
        try:
            frame = self._reader.read(deadline, dead=self._dead)
        except (FrameTimeout, EOFError, ProtocolError) as exc:
            self.kill()
            why = f"no READY within {self.spec.startup_timeout_s:.0f} s" if isinstance(exc, FrameTimeout) \
                else f"{exc} ({describe_exit(self.proc.returncode)})"
            raise WorkerStartError(f"worker for {self.spec.label} failed to start: {why}\n"
                                   f"{self.log.current()}") from None
        if frame["t"] != "ready":
            self.kill()
            raise WorkerStartError(f"worker for {self.spec.label} failed to start:\n"
                                   f"{frame.get('error', frame)}\n{self.log.current()}")
        self.log.segment(frame["mark"], timeout=0.5)  # startup chatter is dropped
        self.network = str(frame.get("network") or "unknown")
        self.files = str(frame.get("files") or "unknown")
        netns.SANDBOX.warn(self.network)
        readonly_mounts.SANDBOX.warn(self.files)

    def _dead(self) -> bool:
        return self.proc.poll() is not None

    def alive(self) -> bool:
        """True while the process runs and its channel is open."""
        return not self._closed and self.proc.poll() is None and not self._reader.eof

    def ping(self, timeout_s: float = 10.0) -> bool:
        """Health check: a pong within ``timeout_s``."""
        if not self.alive():
            return False
        deadline = time.monotonic() + timeout_s
        try:
            write_frame(self._req_w, {"t": "ping"}, deadline)
            return self._reader.read(deadline, dead=self._dead)["t"] == "pong"
        except (FrameTimeout, EOFError, ProtocolError, OSError):
            return False

    def kill(self) -> None:
        """SIGKILL the worker's process group (candidate children included) and clean up."""
        if self._closed:
            return
        self._closed = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._req_w, self._reader.fd):
            try:
                os.close(fd)
            except OSError:
                pass
        remove_scratch_dir(self.scratch)

    def shutdown(self, grace_s: float = 3.0) -> None:
        """Ask the worker to exit, then kill whatever is left of its process group."""
        if self._closed:
            return
        if self.alive():
            try:
                write_frame(self._req_w, {"t": "shutdown"}, time.monotonic() + 1.0)
                self.proc.wait(timeout=grace_s)
            except (FrameTimeout, OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    # ------------------------------------------------------------ work
    def run(self, request: EvalRequest, timeout_s: float) -> RunOutcome:
        """Send ``request``; collect per-workload results as they stream in.

        ``timeout_s`` bounds each workload (build included for the first), measured from the
        request or from the previous workload's answer. On a timeout or crash the process group
        is killed and ``outcome.fault`` describes it (for workload ``len(outcome.completed)``).
        """
        self.used = True
        out = RunOutcome()
        n = len(request.workloads)
        started = time.monotonic()
        deadline = started + timeout_s
        try:
            write_frame(self._req_w, {"t": "evaluate", "request": request_to_wire(request)}, deadline)
            while True:
                frame = self._reader.read(deadline, dead=self._dead)
                kind = frame["t"]
                if kind == "done":
                    out.replace = bool(frame.get("poisoned"))
                    return out
                if kind != "workload" or not 0 <= int(frame.get("i", -1)) < n:
                    raise ProtocolError(f"unexpected frame {str(frame)[:300]}")
                i = int(frame["i"])
                output = self.log.segment(int(frame["mark"]))
                if "result" in frame:
                    result = attach_output(result_from_wire(frame["result"]), output)
                else:
                    log = with_output(f"harness raised in the worker:\n{frame.get('error', '')}", output)
                    result = workload_failure(request, request.workloads[i], EvaluationStatus.RUNTIME_ERROR,
                                              log, extra={"executor_fault": "harness_error"})
                out.completed.append((i, result))
                if frame.get("poisoned") or looks_poisoned(result):
                    out.replace = True
                    self.kill()
                    return out
                deadline = time.monotonic() + timeout_s
        except FrameTimeout:
            self.kill()
            out.fault = Fault("timeout", f"TIMEOUT: no answer within {timeout_s:g} s (build + run of this "
                                         f"workload); worker pid {self.pid} and its process group killed",
                              self.log.current())
        except (EOFError, BrokenPipeError, ConnectionError) as exc:
            try:  # let a dying worker finish exiting so its own status is reported, not our SIGKILL
                self.proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
            self.kill()
            out.fault = Fault("crash", f"worker crashed ({describe_exit(self.proc.returncode)}) after "
                                       f"{time.monotonic() - started:.1f} s: {exc}", self.log.current())
        except (ProtocolError, ValueError, KeyError) as exc:
            self.kill()
            out.fault = Fault("protocol", f"worker broke the protocol: {exc}", self.log.current())
        out.replace = True
        return out
