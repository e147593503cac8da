"""Worker process main: ``python -m kernelopt.executor.worker --in-fd N --out-fd M --device D``.

Speaks :mod:`kernelopt.executor.protocol` on two dedicated pipe fds; fd 1/2 (anything the
harness or a candidate prints, plus faulthandler dumps) go to the executor's bounded log pipe.
Frames in: ``ping``, ``evaluate`` (an EvalRequest), ``shutdown``. Frames out: ``ready`` (or
``fatal`` when the harness cannot be imported), ``pong``, one ``workload`` frame per workload as
soon as it is done (so a later crash keeps earlier verdicts), then ``done``.

The harness function is ``kernelopt.harness.evaluate:evaluate`` unless ``--target`` or the env var
``KERNELOPT_WORKER_TARGET`` names another ``module:function`` with the same signature.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import faulthandler
import importlib
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from kernelopt.data.records import EvalRequest, EvalResult
from kernelopt.data.trace import EvaluationStatus
from kernelopt.executor import netns, readonly_mounts
from kernelopt.executor.logtail import marker
from kernelopt.executor.protocol import (
    read_frame_blocking,
    request_from_wire,
    result_to_wire,
    write_frame_blocking,
)
from kernelopt.executor.sandbox import apply_memory_limit
from kernelopt.harness.processes import become_subreaper

DEFAULT_TARGET = "kernelopt.harness.evaluate:evaluate"
TARGET_ENV = "KERNELOPT_WORKER_TARGET"

Target = Callable[[EvalRequest, str], EvalResult]


def load_target(spec: str) -> Target:
    """Import ``module:function``."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"worker target must be 'module:function', got {spec!r}")
    fn = getattr(importlib.import_module(module), name)
    if not callable(fn):
        raise TypeError(f"worker target {spec!r} is not callable")
    return fn


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed or replaced stream cannot be flushed
            stream.flush()
    with contextlib.suppress(Exception):  # best effort
        ctypes.CDLL(None).fflush(None)  # C-level stdio buffers of extensions


def _cuda_poisoned(device: str) -> bool:
    """After a failure on a GPU: is the CUDA context still usable?"""
    if not device.startswith("cuda") or "torch" not in sys.modules:
        return False
    torch = sys.modules["torch"]
    try:
        torch.cuda.synchronize(device)
        return torch.ones(1, device=device).add_(1).item() != 2.0
    except Exception:  # noqa: BLE001 - any failure means the context is unusable
        return True


_SCRATCH = ""  # set by main(): the executor starts every worker in its own scratch directory


@contextlib.contextmanager
def _fresh_cwd() -> Iterator[None]:
    """Run one request in its own empty directory under the worker's scratch dir, removed after,
    so files a candidate leaves behind never reach the next request of a persistent worker."""
    base = _SCRATCH
    os.makedirs(base, exist_ok=True)  # survives a /tmp cleaner
    path = tempfile.mkdtemp(prefix="request-", dir=base)
    os.chdir(path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.chdir(base)
        shutil.rmtree(path, ignore_errors=True)


def _abandon(scratch: str) -> None:
    """The executor is gone (EOF on the request pipe, or a new parent): remove this worker's
    scratch directory, which the executor can no longer do, and kill the worker's process group
    (candidate children included)."""
    with contextlib.suppress(OSError):
        os.chdir("/")
    shutil.rmtree(scratch, ignore_errors=True)
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _watch_parent(parent: int, scratch: str) -> None:
    """Abandon ship when the executor process dies, even while a request is running."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            _abandon(scratch)


class Worker:
    """The request loop (one instance per process)."""

    def __init__(self, in_fd: int, out_fd: int, device: str, token: str, target: Target) -> None:
        self.in_fd, self.out_fd, self.device, self.token, self.target = in_fd, out_fd, device, token, target
        self._mark = 0

    def send(self, frame: dict[str, Any], with_mark: bool = False) -> None:
        """Write a frame; with ``with_mark`` first close the current output segment."""
        if with_mark:
            self._mark += 1
            frame["mark"] = self._mark
            _flush_output()
            os.write(1, marker(self.token, self._mark))
        write_frame_blocking(self.out_fd, frame)

    def serve(self) -> bool:
        """Answer frames until shutdown (returns True) or EOF (the executor is gone: False)."""
        while True:
            frame = read_frame_blocking(self.in_fd)
            if frame is None:
                return False
            if frame["t"] == "shutdown":
                return True
            if frame["t"] == "ping":
                self.send({"t": "pong", "pid": os.getpid()})
            elif frame["t"] == "evaluate":
                with _fresh_cwd():
                    self.evaluate(frame["request"])
            else:
                self.send({"t": "error", "error": f"unknown frame type {frame['t']!r}"})

    def evaluate(self, wire: Any) -> None:
        """Run every workload of one request, streaming a frame per workload."""
        try:
            request = request_from_wire(wire)
        except Exception:  # noqa: BLE001 - a malformed request is answered, not fatal
            self.send({"t": "error", "error": "malformed EvalRequest:\n" + traceback.format_exc()})
            return
        poisoned = False
        for i, workload in enumerate(request.workloads):
            sub = request.model_copy(update={"workloads": [workload]})
            payload: dict[str, Any]
            failed = True
            try:
                result = self.target(sub, self.device)
                if not isinstance(result, EvalResult):
                    raise TypeError(f"harness returned {type(result).__name__}, not EvalResult")
                payload = {"result": result_to_wire(result)}
                failed = any(r.status != EvaluationStatus.PASSED for r in result.results)
            except BaseException as exc:  # noqa: BLE001 - SystemExit from a candidate included
                payload = {"error": "".join(traceback.format_exception(exc))}
            poisoned = failed and _cuda_poisoned(self.device)
            self.send({"t": "workload", "i": i, "poisoned": poisoned, **payload}, with_mark=True)
            if poisoned:
                break  # the executor replaces this process and resumes the rest elsewhere
        self.send({"t": "done", "poisoned": poisoned})


def main(argv: list[str] | None = None) -> int:
    """Entry point of the worker process."""
    ap = argparse.ArgumentParser(prog="kernelopt.executor.worker")
    ap.add_argument("--in-fd", type=int, required=True)
    ap.add_argument("--out-fd", type=int, required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--token", default="0")
    ap.add_argument("--target", default=None)
    ap.add_argument("--memory-limit-gb", type=float, default=None)
    args = ap.parse_args(argv)
    network, files, sandbox_error = None, None, None
    try:  # first, while the process is single-threaded (unshare of a user namespace requires it)
        network = netns.apply()
        files = readonly_mounts.apply()
    except (ValueError, netns.NetworkIsolationError, readonly_mounts.ReadonlyMountError) as exc:
        sandbox_error = str(exc)

    become_subreaper()  # a candidate's orphans come to this worker, where the harness finds the escaped ones

    global _SCRATCH
    _SCRATCH = os.getcwd()
    os.set_inheritable(args.in_fd, False)
    os.set_inheritable(args.out_fd, False)
    faulthandler.enable(all_threads=True)
    threading.Thread(target=_watch_parent, args=(os.getppid(), _SCRATCH), daemon=True).start()
    spec = args.target or os.environ.get(TARGET_ENV) or DEFAULT_TARGET
    if sandbox_error is not None:
        write_frame_blocking(args.out_fd, {"t": "fatal", "error": f"worker sandbox: {sandbox_error}"})
        return 2
    try:
        apply_memory_limit(args.memory_limit_gb)
        target = load_target(spec)
    except BaseException:  # noqa: BLE001 - reported to the executor as a fatal frame
        write_frame_blocking(args.out_fd, {"t": "fatal", "error": f"cannot load harness target {spec!r}:\n"
                                           + traceback.format_exc()})
        return 2
    worker = Worker(args.in_fd, args.out_fd, args.device, args.token, target)
    worker.send({"t": "ready", "pid": os.getpid(), "device": args.device, "target": spec,
                 "python": sys.version.split()[0], "network": network, "files": files}, with_mark=True)
    if not worker.serve():
        _abandon(_SCRATCH)
    return 0


if __name__ == "__main__":
    sys.exit(main())
