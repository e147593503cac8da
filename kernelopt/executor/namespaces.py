"""Linux namespace primitives shared by a worker's sandboxes (:mod:`netns`, :mod:`readonly_mounts`).

``unshare`` needs a single-threaded process, which is why a worker sets its sandboxes up first thing in ``main``.
"""

from __future__ import annotations

import ctypes
import logging
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000

_log = logging.getLogger("kernelopt.executor")
_WARNED: set[str] = set()


def unshare(flags: int) -> None:
    """``unshare(2)``; raises ``OSError`` with the kernel's errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(ctypes.c_int(flags)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text)


def unshare_user(flags: int = 0) -> None:
    """``unshare(CLONE_NEWUSER | flags)`` and map this process's uid and gid onto themselves, so file permissions
    are unchanged (an unprivileged user namespace may map only its own ids)."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER | flags)
    try:
        _write("/proc/self/setgroups", "deny")
    except FileNotFoundError:  # pragma: no cover - kernels before 3.19
        pass
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def warn_once(status: str, message: str) -> None:
    """Log ``message`` once per process for a sandbox ``status`` a worker reported (not once per worker)."""
    if status not in _WARNED:
        _WARNED.add(status)
        _log.warning(message)
