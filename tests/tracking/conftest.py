"""Fixtures of the tracking tests: a migrated template database copied into each test's store."""

from __future__ import annotations

from pathlib import Path

import pytest
from tracking_helpers import fresh_db

from kernelopt.tracking import TrackingStore


@pytest.fixture(scope="session")
def template_db(tmp_path_factory) -> Path:
    """An empty, fully migrated MLflow sqlite database (creating one costs ~10 s; copying it is instant)."""
    path = tmp_path_factory.mktemp("template") / "mlflow.db"
    TrackingStore(f"sqlite:///{path}")
    return path


@pytest.fixture
def store(tmp_path: Path, template_db: Path) -> TrackingStore:
    """A fresh sqlite-backed store in ``tmp_path / "mlruns"``."""
    return TrackingStore(f"sqlite:///{fresh_db(template_db, tmp_path / 'mlruns' / 'mlflow.db')}")
