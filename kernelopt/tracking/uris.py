"""Tracking URIs and artefact roots: the defaults and how a user-given value is read."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse


def default_tracking_uri(cwd: str | Path | None = None) -> str:
    """``sqlite:///<cwd>/mlruns/mlflow.db`` (absolute path; MLflow 3 deprecates the file store)."""
    base = Path(cwd or os.getcwd()).resolve()
    return f"sqlite:///{base / 'mlruns' / 'mlflow.db'}"


def default_artifact_root(cwd: str | Path | None = None) -> str:
    """``file://<cwd>/mlruns/artifacts``."""
    return (Path(cwd or os.getcwd()).resolve() / "mlruns" / "artifacts").as_uri()


def resolve_tracking_uri(uri: str | None, *, make_folder: bool = True) -> str:
    """Turn ``None`` into the default store and a bare ``*.db`` path into a sqlite URI.

    Any URI with a scheme (``sqlite://``, ``http(s)://``, ``postgresql://``, ``databricks``) is returned
    as given. The directory of a sqlite database is created (unless ``make_folder`` is false: a command that
    only reads a store leaves no folder behind for a mistyped path).

    Raises:
        ValueError: for a bare path that is not a ``.db`` file.
    """
    if uri is None or not str(uri).strip():
        uri = default_tracking_uri()
    uri = str(uri).strip()
    if "://" not in uri and uri != "databricks":
        if not uri.endswith(".db"):
            raise ValueError(
                f"tracking_uri {uri!r}: give a URI (sqlite:///path/mlflow.db, http://host:port, ...) "
                "or a path ending in .db"
            )
        uri = f"sqlite:///{Path(uri).resolve()}"
    db = sqlite_path(uri)
    if db is not None and make_folder:
        db.parent.mkdir(parents=True, exist_ok=True)
    return uri


def sqlite_path(uri: str) -> Path | None:
    """File path of a ``sqlite:///`` URI, or ``None`` for other schemes / in-memory databases."""
    if not uri.startswith("sqlite:///"):
        return None
    path = uri[len("sqlite:///"):]
    if not path or path == ":memory:":
        return None
    return Path(path)


def resolve_artifact_root(tracking_uri: str, artifact_root: str | None) -> str | None:
    """Where new experiments put their artefacts.

    Given a root (path or URI) it is used as is (paths become ``file://`` URIs). Otherwise a sqlite
    store keeps artefacts in ``artifacts/`` next to the database (``<cwd>/mlruns/artifacts`` for the
    default store) and any other store (a tracking server) decides itself (``None``).
    """
    if artifact_root:
        parsed = urlparse(artifact_root)
        if parsed.scheme and len(parsed.scheme) > 1:  # a URI (not a Windows drive letter)
            return artifact_root.rstrip("/")
        path = Path(artifact_root).resolve()
        path.mkdir(parents=True, exist_ok=True)
        return path.as_uri()
    db = sqlite_path(tracking_uri)
    if db is None:
        return None
    root = db.parent / "artifacts"
    root.mkdir(parents=True, exist_ok=True)
    return root.as_uri()
