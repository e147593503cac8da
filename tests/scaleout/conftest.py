"""Fixtures of the scale-out tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def build_cache_env(tmp_path_factory) -> dict[str, str]:
    """Worker environment pointing the harness build cache at a temporary folder."""
    return {"KERNELOPT_CACHE_DIR": str(tmp_path_factory.mktemp("scaleout-builds"))}
