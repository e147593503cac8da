"""Processes a candidate leaves running outside its worker's process group (REFERENCE §7: work outside the timed
window, and a process the executor's ``killpg`` never reaches).

An evaluation worker runs in its own process group and session, and the executor kills that whole group when it
replaces the worker; a candidate child that calls ``setsid()`` / ``setpgid()`` (a daemon, a GPU hog burning
through later candidates' timings) escaped that. The worker makes itself a *child subreaper*
(``PR_SET_CHILD_SUBREAPER``), so every orphaned descendant is re-parented to it instead of to init and stays
visible; after each workload :func:`escaped` lists the worker's children outside its process group, and
:func:`kill_escaped` kills them (and what they re-parent in turn). The harness rejects the workload that left
them. Linux only (``/proc``); elsewhere nothing is found.

A daemon that stays in the worker's process group is not caught here: it dies with the worker (``killpg``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
_REAPER: list[int] = []  # the pid that became a subreaper here (a forked child inherits the module, not the role)


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants; False where the kernel refuses (or not Linux).
    Only a process that did this (an evaluation worker) looks for escaped children: a process evaluating in-process
    (a test, a notebook) may have children of its own in other sessions (a Ray head, a server) and leaves them be."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
    if ok:
        _REAPER[:] = [os.getpid()]
    return ok


def _stat(pid: int) -> tuple[str, str, int, int, int] | None:
    """(command, state, parent pid, process group, session) of a process from ``/proc/<pid>/stat``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm, rest = text[text.find("(") + 1: text.rfind(")")], text[text.rfind(")") + 2:].split()
    try:
        return comm, rest[0], int(rest[1]), int(rest[2]), int(rest[3])
    except (IndexError, ValueError):
        return None


def children(pid: int | None = None) -> list[int]:
    """Pids whose parent is ``pid`` (default: this process): from ``/proc/<pid>/task/*/children``, else (a kernel
    without ``CONFIG_PROC_CHILDREN``) from every process's ``stat``."""
    pid = os.getpid() if pid is None else pid
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        return sorted({int(c) for t in tasks for c in (t / "children").read_text().split()})
    except FileNotFoundError:
        pass
    except OSError:
        return []
    try:
        entries = [e for e in Path("/proc").iterdir() if e.name.isdigit()]
    except OSError:
        return []
    return sorted(int(e.name) for e in entries if (st := _stat(int(e.name))) is not None and st[2] == pid)


def escaped() -> list[tuple[int, str]]:
    """(pid, command) of this process's children that left its process group (``setsid``, ``setpgid``); none unless
    this process made itself a subreaper (:func:`become_subreaper`)."""
    if _REAPER != [os.getpid()]:
        return []
    group = os.getpgrp()
    out = []
    for pid in children():
        st = _stat(pid)
        if st is not None and st[3] != group:
            out.append((pid, st[0]))
    return out


def kill_escaped(found: list[tuple[int, str]], rounds: int = 5) -> list[tuple[int, str]]:
    """SIGKILL ``found`` (and their own process groups), reap them, and repeat for what they left re-parented to
    this process; returns everything killed."""
    killed: list[tuple[int, str]] = []
    for _ in range(rounds):
        if not found:
            break
        for pid, _comm in found:
            with contextlib.suppress(OSError):  # its group first: what it started there
                os.killpg(os.getpgid(pid), signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 2.0
        pending = {pid for pid, _ in found}
        while pending and time.monotonic() < deadline:
            for pid in list(pending):
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        pending.discard(pid)
                except ChildProcessError:
                    pending.discard(pid)
            if pending:
                time.sleep(0.01)
        killed += found
        found = escaped()
    return killed


def describe(found: list[tuple[int, str]]) -> str:
    """``pid 123 (sleep), pid 124 (python3)``."""
    return ", ".join(f"pid {pid} ({comm})" for pid, comm in found)
