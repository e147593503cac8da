"""Writes to the harness or operator files (REFERENCE §7, "editing the harness").

Two layers. A worker process mounts :func:`worker_readonly_roots` read-only in its own mount namespace
(:mod:`kernelopt.executor.readonly_mounts`), keeping :func:`worker_writable_dirs` writable, so such writes fail
(``EROFS``) before they happen. And, wherever the evaluation runs (also in-process, and where a mount namespace is
unavailable or a root candidate remounts), ``evaluate`` fingerprints the evaluation-path packages and the
operator's files before the build and after every workload (size and SHA-1 of each file, ``__pycache__``
excluded: about 5 ms) and rejects a solution that changed, added or removed any of them.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import kernelopt
from kernelopt.harness import reference_times
from kernelopt.harness.build_cache import default_cache_dir
from kernelopt.operators import operator_path, operators_root

PACKAGE_DIR = Path(kernelopt.__file__).resolve().parent

#: The parts of the package on the evaluation path (edits elsewhere cannot change a verdict).
PROTECTED_PACKAGES = ("harness", "executor", "data")

Fingerprint = dict[str, tuple[int, str]]


def protected_roots(definition: str) -> list[Path]:
    """What a candidate must not write: the evaluation-path packages (``kernelopt/harness``,
    ``executor``, ``data``) and the operator's folder (definition, workloads, inputs generator,
    harness settings, policy, and any file added there; not its README or ``solutions/``)."""
    return [PACKAGE_DIR / name for name in PROTECTED_PACKAGES] + [operator_path(definition)]


#: more folders a worker mounts read-only (``os.pathsep``-separated), e.g. a tracking store outside the checkout
EXTRA_READONLY_ENV = "KERNELOPT_WORKER_READONLY"
#: more folders a worker keeps writable inside those (``os.pathsep``-separated)
EXTRA_WRITABLE_ENV = "KERNELOPT_WORKER_WRITABLE"


def _env_paths(name: str) -> list[Path]:
    return [Path(p) for p in os.environ.get(name, "").split(os.pathsep) if p.strip()]


def worker_readonly_roots() -> list[Path]:
    """What an evaluation worker mounts read-only: the source checkout holding the package (its harness, its
    ``operators/`` library, the MLflow store under it by default, the retained kernels), or only the package when
    it is installed elsewhere; the operator library in effect (``$KERNELOPT_OPERATORS_DIR``); and the folders in
    ``$KERNELOPT_WORKER_READONLY``."""
    checkout = PACKAGE_DIR.parent
    main = checkout if (checkout / "pyproject.toml").is_file() else PACKAGE_DIR
    return [main, operators_root(), *_env_paths(EXTRA_READONLY_ENV)]


def worker_writable_dirs() -> list[Path]:
    """What an evaluation worker needs to write, kept writable where it lies inside a read-only root: the build
    cache, the Triton, CUDA and user caches, the temporary folder, the worker's scratch folder (its working
    directory), the reference-times folder, and the folders in ``$KERNELOPT_WORKER_WRITABLE``."""
    home = Path.home()
    out = [default_cache_dir(), Path(os.environ.get("TRITON_CACHE_DIR") or home / ".triton"), home / ".cache",
           home / ".nv", Path(tempfile.gettempdir()), Path.cwd()]
    if os.environ.get(reference_times.ENV):
        out.append(Path(os.environ[reference_times.ENV]))
    return out + _env_paths(EXTRA_WRITABLE_ENV)


_SKIP_DIRS = {"__pycache__", "solutions"}
_SKIP_FILES = {"README.md"}


def _files(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        out += [os.path.join(dirpath, f) for f in filenames if f not in _SKIP_FILES]
    return out


def fingerprint(roots: list[Path]) -> Fingerprint:
    """``path -> (size, sha1)`` of every file under ``roots`` (missing roots are empty; ``__pycache__``,
    ``solutions/`` and READMEs are left out)."""
    out: Fingerprint = {}
    for root in roots:
        for p in _files(Path(root)):
            try:
                data = Path(p).read_bytes()
            except OSError:
                continue
            out[p] = (len(data), hashlib.sha1(data).hexdigest())
    return out


def changes(before: Fingerprint, after: Fingerprint) -> list[str]:
    """Paths changed, added or removed between two fingerprints (sorted)."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
