"""Fixtures for the executor tests: one shared CPU executor (real worker subprocesses)."""

from __future__ import annotations

import pytest

from kernelopt.executor import CpuExecutor


@pytest.fixture(scope="session")
def build_cache_env(tmp_path_factory) -> dict[str, str]:
    """Worker environment pointing the harness build cache at a temporary folder."""
    return {"KERNELOPT_CACHE_DIR": str(tmp_path_factory.mktemp("executor-builds"))}


@pytest.fixture(scope="session")
def cpu_executor(build_cache_env):
    """A persistent CPU executor shared by the executor tests (its worker restarts after faults)."""
    with CpuExecutor(env=build_cache_env) as ex:
        yield ex
