"""On-disk build cache: a solution's sources written into a package folder keyed by ``Solution.hash()``.

Layout (``<root>`` = ``$KERNELOPT_CACHE_DIR`` or ``~/.cache/kernelopt/builds``)::

    <root>/py/ko_<hash>/<sources...>      python / triton packages (``<root>/py`` goes on sys.path)
    <root>/ext/ko_<hash>/<sources...>     cpp / cuda sources and their torch-extension build folder

Writes are atomic (a temporary folder renamed into place), so several worker processes may build the
same solution at once; an existing folder is reused only when every source file matches byte for byte and, for
a Python package, it holds no other Python file (see ``_matches``); its bytecode is removed when it is reused.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

from kernelopt.data.solution import Solution

_IMPORT_LOCK = threading.Lock()


def default_cache_dir() -> Path:
    """Root of the build cache: ``$KERNELOPT_CACHE_DIR`` or ``~/.cache/kernelopt/builds``."""
    env = os.environ.get("KERNELOPT_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "kernelopt" / "builds"


#: The start of every solution's package name.
PACKAGE_PREFIX = "ko_"


def package_name(solution: Solution) -> str:
    """Unique, importable package name of a solution (``ko_`` + its 40-hex hash)."""
    return PACKAGE_PREFIX + solution.hash()


def _matches(folder: Path, solution: Solution, kind: str = "py") -> bool:
    """Every source byte for byte and, for an importable package, no Python file beyond its sources and the empty
    ``__init__.py`` files the cache made: a candidate that wrote into another solution's cached package (an
    ``__init__.py`` patching the worker) was imported by later, separate runs of that solution. (Bytecode is not
    judged here: :func:`_drop_bytecode` removes it from a folder that is reused.)"""
    for src in solution.sources:
        f = folder / src.path
        try:
            if f.read_text(encoding="utf-8") != src.content:
                return False
        except (OSError, UnicodeDecodeError):
            return False
    if kind != "py":
        return True
    listed = {src.path for src in solution.sources}
    try:
        for f in folder.rglob("*"):
            rel = f.relative_to(folder).as_posix()
            if "__pycache__" in f.parts:
                continue
            if f.suffix == ".py" and rel not in listed and (f.name != "__init__.py" or f.stat().st_size):
                return False
    except OSError:
        return False
    return True


def _drop_bytecode(folder: Path) -> None:
    """Remove the ``__pycache__`` folders of a reused package: a ``.pyc`` whose recorded source size and time match
    is imported instead of its source, and no check reads it as source (a process importing from the folder at the
    same moment compiles the source again)."""
    for cache in folder.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def _write_sources(folder: Path, solution: Solution, make_packages: bool) -> None:
    for src in solution.sources:
        f = folder / src.path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(src.content, encoding="utf-8")
    if make_packages:
        # Every folder holding Python files becomes a regular package so relative imports work.
        dirs = {folder} | {(folder / s.path).parent for s in solution.sources if s.path.endswith(".py")}
        for d in dirs:
            while True:
                init = d / "__init__.py"
                if not init.exists():
                    init.write_text("")
                if d == folder:
                    break
                d = d.parent


def materialize(solution: Solution, kind: str, cache_dir: str | Path | None = None) -> Path:
    """Write a solution's sources under ``<cache>/<kind>/ko_<hash>`` (reused when identical).

    Args:
        solution: The solution whose sources to write.
        kind: Sub-folder: ``"py"`` for importable packages, ``"ext"`` for compiled extensions.
        cache_dir: Cache root; defaults to :func:`default_cache_dir`.

    Returns:
        The package folder.
    """
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    base = root / kind
    base.mkdir(parents=True, exist_ok=True)
    target = base / package_name(solution)
    if target.is_dir() and _matches(target, solution, kind):
        if kind == "py":
            _drop_bytecode(target)
        return target
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=base))
    try:
        _write_sources(tmp, solution, make_packages=(kind == "py"))
        if target.exists():  # stale or corrupted copy: replace it
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(tmp, target)
        except OSError:
            # Another process won the race; its copy is as good as ours if it matches.
            if not (target.is_dir() and _matches(target, solution, kind)):
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def import_entry_module(package_dir: Path, entry_file: str) -> ModuleType:
    """Import ``entry_file`` of a materialised package under its unique package name.

    Args:
        package_dir: Folder returned by :func:`materialize` (``.../py/ko_<hash>``).
        entry_file: Relative path of the entry ``.py`` file inside the package.

    Returns:
        The imported module (``ko_<hash>.<dotted entry path>``).
    """
    if not entry_file.endswith(".py"):
        raise ImportError(f"entry file '{entry_file}' is not a .py file")
    parts = Path(entry_file[: -len(".py")]).parts
    bad = [p for p in parts if not p.isidentifier()]
    if bad:
        raise ImportError(f"entry file '{entry_file}': path part(s) {bad} are not valid Python identifiers")
    module_name = ".".join((package_dir.name, *parts))
    root = str(package_dir.parent)
    with _IMPORT_LOCK:
        if root not in sys.path:
            sys.path.insert(0, root)
        importlib.invalidate_caches()
        return importlib.import_module(module_name)
