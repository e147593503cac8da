"""Linux namespace primitives shared by a worker's sandboxes (:mod:`netns`, :mod:`readonly_mounts`).

``unshare`` needs a single-threaded process, which is why a worker sets its sandboxes up first thing in ``main``.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass

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


def unshare_new(flag: int, name: str) -> str:
    """``unshare(flag)`` where the process may (root), else inside a new user namespace of its own
    (:func:`unshare_user`); returns how (``"<name> namespace"`` or ``"user+<name> namespace"``).

    Raises:
        OSError: the kernel refused both ways (the error of the user-namespace attempt).
    """
    try:
        unshare(flag)
        return f"{name} namespace"
    except OSError as first:
        if first.errno not in (errno.EPERM, errno.EACCES, errno.EINVAL):
            raise
    unshare_user(flag)
    return f"user+{name} namespace"


@dataclass(frozen=True)
class Sandbox:
    """One of a worker's sandboxes and its three modes: ``on`` (the default: set it up where the kernel allows
    it, else run without and say why), ``required`` (refuse to start without it) and ``off``. The mode is read
    from ``env`` (what the config key ``setting`` sets); what the worker got is a status string, put in
    ``status_env`` for the harness's environment snapshot: ``"<on> (<how>)"`` or ``"<off> (<why>)"``."""

    kind: str  # "network", "files": named in errors
    env: str
    status_env: str
    setting: str  # e.g. "executor.network"
    on: str
    off: str
    unavailable: str  # the start of the reason when the kernel refused
    error: type[RuntimeError]  # raised for ``required`` when the kernel refused
    consequence: str  # what a worker without it can do, for the warning

    @property
    def modes(self) -> tuple[str, str, str]:
        return (self.on, "required", self.off)

    def apply(self, mode: str | None, setup: Callable[[], str]) -> str:
        """Apply a mode (default ``$env``, else ``on``) in this single-threaded process with ``setup`` (returns
        how; raises ``OSError`` when the kernel refuses); returns the status and sets it in ``status_env``.

        Raises:
            ValueError: unknown mode. ``error``: ``required`` and the kernel refused.
        """
        mode = (mode if mode is not None else os.environ.get(self.env) or self.on).strip().lower()
        if mode not in self.modes:
            raise ValueError(f"{self.env}={mode!r} is not a {self.kind} mode; choose one of {', '.join(self.modes)}")
        if mode == self.off:
            status = f"{self.off} ({self.setting}={self.off})"
        else:
            try:
                status = f"{self.on} ({setup()})"
            except OSError as exc:
                why = f"{self.unavailable}: {exc.strerror or exc}"
                if mode == "required":
                    raise self.error(f"{why} ({self.setting}=required; use {self.on} to run without it, with a "
                                     f"warning, or {self.off})") from None
                status = f"{self.off} ({why})"
        os.environ[self.status_env] = status
        return status

    def met(self, status: str | None) -> bool:
        """True for the status string of a worker that has this sandbox."""
        return bool(status) and str(status).startswith(self.on)

    def asked_off(self, status: str | None) -> bool:
        """True for the status string of a worker whose configuration turned this sandbox off."""
        return f"{self.setting}={self.off}" in str(status)

    def warn(self, status: str) -> None:
        """Log once per process (and per reason) that workers lack this sandbox although it was asked for
        (``off`` asked for it and is not warned about)."""
        if not self.met(status) and not self.asked_off(status) and status not in _WARNED:
            _WARNED.add(status)
            _log.warning("evaluation workers %s: %s; set %s=required to refuse such workers", self.consequence, status,
                         self.setting)
