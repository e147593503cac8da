"""Output paths a command will write, checked before any work: a folder given for a file, a path whose
folder cannot be made or written is one clear line (it used to be a traceback, some only after the
evaluation they were to record)."""

from __future__ import annotations

import os
from pathlib import Path

from kernelopt.data import DataError
from kernelopt.data.loader import names_folder


def _folder(folder: Path, what: str, path: Path) -> None:
    """``folder`` exists and is writable, or can be made: its nearest existing ancestor is a writable folder.
    Nothing is created here (a later check of the same command may still refuse)."""
    there = folder
    while not there.exists() and there != there.parent:
        there = there.parent
    if not there.is_dir():
        raise DataError(f"{what} {path}: cannot create the folder {folder} ({there} is a file)")
    if not os.access(there, os.W_OK):
        raise DataError(f"{what} {path}: the folder {there} is not writable")


def output_file(path: str | Path, what: str) -> Path:
    """``path`` as a file this command may write (its folder may still have to be made); :class:`DataError`
    otherwise."""
    p = Path(path)
    if p.is_dir():
        raise DataError(f"{what} {p}: is a folder; give a file path")
    _folder(p.parent, what, p)
    if p.exists() and not os.access(p, os.W_OK):
        raise DataError(f"{what} {p}: is not writable")
    return p


def output_dir(path: str | Path, what: str) -> Path:
    """``path`` as a folder this command may write into (or make); :class:`DataError` otherwise."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise DataError(f"{what} {p}: is a file; give a folder")
    _folder(p, what, p)
    return p


def output_file_or_folder(path: str | Path | None, what: str) -> Path | None:
    """``path`` where a command writes ``<name>.json`` into a folder or to the file given (``None``: not given):
    a folder (or a path ending in ``/``) as :func:`output_dir` checks it, a file as :func:`output_file` does."""
    if path is None:
        return None
    if names_folder(path):
        return output_dir(path, what)
    return output_file(path, what)
