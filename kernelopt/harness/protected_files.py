"""Writes to the harness or operator files (REFERENCE §7, "editing the harness").

The worker runs candidates as the same user as the checkout, so the files cannot be made read-only
to the candidate without changing them for everyone (no user namespaces here). Instead
``evaluate`` fingerprints the evaluation-path packages and the operator's files before the build
and after every workload (size and SHA-1 of each file, ``__pycache__`` excluded: about 5 ms)
and rejects a solution that changed, added or removed any of them.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import kernelopt
from kernelopt.operators import operator_path

PACKAGE_DIR = Path(kernelopt.__file__).resolve().parent

#: The parts of the package on the evaluation path (edits elsewhere cannot change a verdict).
PROTECTED_PACKAGES = ("harness", "executor", "data")

Fingerprint = dict[str, tuple[int, str]]


def protected_roots(definition: str) -> list[Path]:
    """What a candidate must not write: the evaluation-path packages (``kernelopt/harness``,
    ``executor``, ``data``) and the operator's folder (definition, workloads, inputs generator,
    harness settings, policy, and any file added there; not its README or ``solutions/``)."""
    return [PACKAGE_DIR / name for name in PROTECTED_PACKAGES] + [operator_path(definition)]


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
