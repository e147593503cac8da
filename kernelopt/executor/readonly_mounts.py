"""Read-only evaluation path in a worker (REFERENCE §7, "editing the harness": prevented, not only detected).

A worker moves itself into a fresh Linux **mount namespace** right after its network namespace, while still
single-threaded, and there bind-mounts the checkout (the harness, the operator library, the MLflow store under it,
the retained kernels) read-only over itself (:func:`kernelopt.harness.protected_files.worker_readonly_roots`).
The folders it must write that lie inside (the build cache, the scratch folder, caches: ``worker_writable_dirs``)
stay writable. A candidate's ``open(path, "w")`` on the harness or on ``operators/<def>/harness.json`` then fails
with ``EROFS``; the executor, the campaign and the user's shell, in the host's mount namespace, see no change.

How: ``unshare(CLONE_NEWNS)`` (root, or a worker already in its own user namespace), else
``unshare(CLONE_NEWUSER | CLONE_NEWNS)``; propagation made private (nothing leaks to the host); writable folders
bound onto themselves, then each root bound recursively onto itself and remounted read-only (keeping the flags a
user namespace may not clear: nosuid, nodev, noexec, atime). A worker that is not real root then enters one more
user namespace, which **locks** those mounts: its capabilities there cannot remount them writable or unmount them.
(Checked here as ``nobody``: remount and umount refused, and a write through ``/proc/<pid>/root`` of a process
outside, into the host's mount namespace, refused with ``EACCES``.) A real-root worker is not locked (the GPU
driver's profiling counters need root's capabilities): it could remount on purpose, or write through
``/proc/<pid>/root`` of a process outside; the harness's per-workload fingerprints
(:mod:`kernelopt.harness.protected_files`) still reject such a change of the harness or operator files.

Modes (``executor.files``, passed to the worker as ``KERNELOPT_WORKER_FILES``): ``readonly`` (default: where the
kernel allows it, else writable with the reason recorded), ``required`` (refuse to start a worker that cannot have
it), ``writable`` (no mount namespace). What the worker got is in its READY frame and every evaluation's environment
(``sandbox.files``).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from kernelopt.executor.namespaces import CLONE_NEWNS, Sandbox, unshare_new, unshare_user
from kernelopt.harness.sandbox_status import SANDBOX_STATUS

FILES_ENV = "KERNELOPT_WORKER_FILES"
STATUS_ENV, OFF = SANDBOX_STATUS["files"]  # what the worker got, for the harness's environment snapshot; off's word

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_NOATIME, _MS_NODIRATIME, _MS_BIND = 0x20, 0x400, 0x800, 0x1000
_MS_REC, _MS_PRIVATE, _MS_RELATIME = 0x4000, 0x40000, 0x200000
#: statvfs f_flag bit -> the mount flag a remount must repeat (a user namespace may not clear them)
_KEEP = ((os.ST_NOSUID, _MS_NOSUID), (os.ST_NODEV, _MS_NODEV), (os.ST_NOEXEC, _MS_NOEXEC),
         (os.ST_NOATIME, _MS_NOATIME), (os.ST_NODIRATIME, _MS_NODIRATIME), (os.ST_RELATIME, _MS_RELATIME))


class ReadonlyMountError(RuntimeError):
    """``required`` read-only mounts are not available here (the message says why)."""


def _mount(source: str | None, target: str, flags: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    src = source.encode() if source is not None else None
    if libc.mount(src, target.encode(), None, ctypes.c_ulong(flags), None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def plan(roots: list[Path], writable: list[Path]) -> tuple[list[Path], list[Path]]:
    """The roots to mount read-only (existing folders, resolved, none inside another) and the writable folders to
    keep inside them (strictly inside a root and holding none: a writable folder that holds a root, such as a
    working directory at the checkout, is dropped rather than reopening the root)."""
    real = sorted({Path(os.path.realpath(r)) for r in roots if Path(r).is_dir()}, key=lambda p: len(p.parts))
    tops: list[Path] = []
    for r in real:
        if not any(_inside(r, t) for t in tops):
            tops.append(r)
    holes: list[Path] = []
    for w in sorted({Path(os.path.realpath(w)) for w in writable}, key=lambda p: len(p.parts)):
        if any(_inside(t, w) for t in tops) or not any(_inside(w, t) for t in tops):
            continue
        if not any(_inside(w, h) for h in holes):
            holes.append(w)
    return tops, holes


def _remount_readonly(target: Path) -> None:
    flags = os.statvfs(target).f_flag
    keep = 0
    for st, ms in _KEEP:
        if flags & st:
            keep |= ms
    _mount(None, str(target), _MS_REMOUNT | _MS_BIND | _MS_RDONLY | keep)


def mount_readonly(roots: list[Path], writable: list[Path]) -> str:
    """Enter a new mount namespace with ``roots`` read-only and ``writable`` (inside them) writable; returns how.

    Raises:
        OSError: the kernel refused (this process may be left in a new, private mount namespace with part of the
        mounts made: nothing outside it changes).
    """
    tops, holes = plan(roots, writable)
    if not tops:
        return "nothing to protect"
    real_root = os.geteuid() == 0
    how = unshare_new(CLONE_NEWNS, "mount")
    _mount(None, "/", _MS_REC | _MS_PRIVATE)
    kept = 0
    for h in holes:
        try:
            h.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue  # it cannot exist, so nothing will write there
        _mount(str(h), str(h), _MS_BIND | _MS_REC)
        kept += 1
    for t in tops:
        _mount(str(t), str(t), _MS_BIND | _MS_REC)
        _remount_readonly(t)
    if not real_root or how.startswith("user"):
        unshare_user(CLONE_NEWNS)  # mounts inherited by a less privileged namespace are locked
        how += ", locked"
    return f"{how}: {len(tops)} read-only, {kept} writable inside"


SANDBOX = Sandbox("files", FILES_ENV, STATUS_ENV, "executor.files", "readonly", OFF,
                  "read-only mounts unavailable", ReadonlyMountError,
                  "can write the harness and operator files (writes are still detected and rejected)")


def apply(mode: str | None = None) -> str:
    """Apply a files mode in this (single-threaded) process; returns the status string recorded with evaluations
    and sets it in ``STATUS_ENV``. ``mode`` defaults to ``$KERNELOPT_WORKER_FILES``, else ``readonly``.

    Raises:
        ValueError: unknown mode. ReadonlyMountError: ``required`` and the kernel refused.
    """
    from kernelopt.harness.protected_files import worker_readonly_roots, worker_writable_dirs

    return SANDBOX.apply(mode, lambda: mount_readonly(worker_readonly_roots(), worker_writable_dirs()))

