"""Sandbox basics for worker processes: scrubbed environment, scratch cwd, memory limit, and the list of the
namespace sandboxes a worker sets up (:data:`SANDBOXES`: :mod:`netns`, :mod:`readonly_mounts`).

This module keeps secrets out of candidate code, gives each worker a throw-away working directory and caps host
memory; the namespaces keep it off the network and off the checkout (seccomp and cgroups are not used).
"""

from __future__ import annotations

import atexit
import fnmatch
import os
import resource
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import kernelopt
from kernelopt.executor import netns, readonly_mounts
from kernelopt.executor.namespaces import Sandbox
from kernelopt.harness.reference_times import ENV as REFERENCE_TIMES_ENV

#: The namespace sandboxes of a worker; each one's ``kind`` is its ``executor.<kind>`` config key and the key of
#: its status in a worker's READY frame and in an evaluation's ``environment["sandbox"]``.
SANDBOXES: tuple[Sandbox, ...] = (netns.SANDBOX, readonly_mounts.SANDBOX)

#: Environment variables matching any of these (case-insensitive) never reach a worker. A denylist: what a
#: kernel needs (PATH, HOME, PYTHONPATH, LD_LIBRARY_PATH, CUDA_*, TRITON_*, TORCH_*, the KERNELOPT_* folders and
#: worker target) matches none of them.
SECRET_PATTERNS: tuple[str, ...] = (
    "*KEY*", "*_TOKEN", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_PASS", "*_PAT", "*CREDENTIAL*",
    "*DATABASE_URL", "*_DSN", "SSH_AUTH_SOCK", "MLFLOW_TRACKING_*", "AWS_*", "DATABRICKS_*",
)

_REPO_ROOT = Path(kernelopt.__file__).resolve().parent.parent


def is_secret(name: str) -> bool:
    """True when an environment variable name looks like a credential."""
    up = name.upper()
    return any(fnmatch.fnmatchcase(up, pat) for pat in SECRET_PATTERNS)


def scrub_env(env: Mapping[str, str]) -> dict[str, str]:
    """Copy of ``env`` without variables that look like credentials (see ``SECRET_PATTERNS``)."""
    return {k: v for k, v in env.items() if not is_secret(k)}


def worker_env(extra: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment of a worker process.

    Starts from ``base`` (default ``os.environ``) without secrets, makes the kernelopt checkout
    importable (``PYTHONPATH``), turns on unbuffered output and faulthandler, then applies
    ``extra`` (device selection, ``TRITON_INTERPRET``...). ``extra`` is not scrubbed: the caller
    chose it.
    """
    env = scrub_env(os.environ if base is None else base)
    paths = [str(_REPO_ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"
    env.pop("PYTHONSTARTUP", None)
    env.setdefault(REFERENCE_TIMES_ENV, run_reference_times_dir())
    env.update(extra or {})
    return env


_RUN_DIRS: dict[int, str] = {}


def run_reference_times_dir() -> str:
    """This process's folder for its workers' shared reference timings: made on first use, removed when the
    process exits, so every worker of one campaign or ``kernelopt evaluate`` (a fresh one after a crash
    included) reuses the first timing of a reference, and nothing carries over to the next run (a timing
    taken under load would otherwise stay). Setting ``KERNELOPT_REFERENCE_TIMES_DIR`` keeps one folder across runs."""
    pid = os.getpid()
    if pid not in _RUN_DIRS:
        path = tempfile.mkdtemp(prefix="kernelopt-reftimes-")
        _RUN_DIRS[pid] = path
        atexit.register(shutil.rmtree, path, True)
    return _RUN_DIRS[pid]


def make_scratch_dir(prefix: str = "kernelopt-worker-") -> str:
    """Fresh private working directory for one worker process."""
    return tempfile.mkdtemp(prefix=prefix)


def remove_scratch_dir(path: str | None) -> None:
    """Delete a worker's scratch directory (best effort)."""
    if path:
        shutil.rmtree(path, ignore_errors=True)


def apply_memory_limit(limit_gb: float | None) -> None:
    """Cap this process's address space (``RLIMIT_AS``); called inside the worker.

    Over the cap, allocations fail with ``MemoryError`` (Python) or ``std::bad_alloc`` instead of
    taking the host down. Not used on GPU workers by default: CUDA reserves huge virtual ranges.
    """
    if limit_gb is None:
        return
    if limit_gb <= 0:
        raise ValueError(f"memory_limit_gb must be > 0, got {limit_gb}")
    limit = int(limit_gb * (1 << 30))
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
