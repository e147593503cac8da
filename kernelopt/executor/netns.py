"""Network isolation of a worker process (REFERENCE §7: candidate code must not reach the network).

A worker moves itself into a fresh Linux **network namespace** before it imports the harness or any candidate:
inside it there is only a loopback interface (brought up, so code that talks to itself on 127.0.0.1 still works),
no route out, and neither the host's loopback services (an MLflow server, a Ray head, a database) nor the internet
can be reached. Abstract Unix sockets are per namespace too. Files, devices (the GPU), pipes and shared memory are
untouched, so the harness works as before.

How: ``unshare(CLONE_NEWNET)`` when the process may (root with ``CAP_SYS_ADMIN``); otherwise
``unshare(CLONE_NEWUSER | CLONE_NEWNET)``, a user namespace that maps the process's own uid and gid onto
themselves (unprivileged user namespaces; file permissions are unchanged). Both need a single-threaded process,
which is why the worker does it first thing in ``main``.

Modes (``executor.network``, passed to the worker as ``KERNELOPT_WORKER_NETWORK``):

* ``isolated`` (default): isolate when the kernel allows it; when it does not (a container without user
  namespaces, seccomp), run on the host network and say so;
* ``required``: refuse to start a worker that cannot be isolated;
* ``host``: no isolation (a harness target that needs the network).

What the worker got is recorded in every evaluation's environment (``sandbox.network``) and in the worker's READY
frame, so a campaign on a machine where isolation is unavailable says so instead of silently running unisolated.
"""

from __future__ import annotations

import fcntl
import socket
import struct

from kernelopt.executor.namespaces import CLONE_NEWNET, Sandbox, unshare_new
from kernelopt.harness.sandbox_status import SANDBOX_STATUS

#: requested mode, read by the worker
NETWORK_ENV = "KERNELOPT_WORKER_NETWORK"
#: what the worker got (``isolated (...)`` or ``host (...)``), read by the harness's environment snapshot; the off
#: mode's word
STATUS_ENV, OFF = SANDBOX_STATUS["network"]


_SIOCSIFFLAGS = 0x8914
_IFF_UP, _IFF_LOOPBACK, _IFF_RUNNING = 0x1, 0x8, 0x40


class NetworkIsolationError(RuntimeError):
    """``required`` isolation is not available here (the message says why)."""


def _loopback_up() -> bool:
    """Bring ``lo`` up inside the new namespace (best effort: isolation holds either way)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            fcntl.ioctl(s.fileno(), _SIOCSIFFLAGS,
                        struct.pack("16sH22x", b"lo", _IFF_UP | _IFF_LOOPBACK | _IFF_RUNNING))
        return True
    except OSError:
        return False


def isolate() -> str:
    """Move this process into a new network namespace; returns how (``net namespace`` or ``user+net namespace``).

    Raises:
        OSError: the kernel refused both ways (the error of the user-namespace attempt).
    """
    how = unshare_new(CLONE_NEWNET, "net")
    return how + ("" if _loopback_up() else ", loopback down")


SANDBOX = Sandbox("network", NETWORK_ENV, STATUS_ENV, "executor.network", "isolated", OFF,
                  "network isolation unavailable: unshare", NetworkIsolationError, "can reach the network")


def apply(mode: str | None = None) -> str:
    """Apply a network mode in this (single-threaded) process; returns the status string recorded with evaluations
    and sets it in ``STATUS_ENV``. ``mode`` defaults to ``$KERNELOPT_WORKER_NETWORK``, else ``isolated``.

    Raises:
        ValueError: unknown mode. NetworkIsolationError: ``required`` and the kernel refused.
    """
    return SANDBOX.apply(mode, isolate)

