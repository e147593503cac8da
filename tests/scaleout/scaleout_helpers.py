"""Helpers of the scale-out tests: fixture solutions, small rmsnorm requests, free ports, the CLI,
and where PostgreSQL lives."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from kernelopt.data import EvalRequest, HarnessSettings, Solution
from kernelopt.operators import load_operator

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "tests" / "fixtures" / "solutions"
#: The cheapest harness pass that still checks correctness and times once.
TINY_SETTINGS = {"warmup": 0, "iterations": 1, "trials": 1}
#: CLI overrides for a campaign that finishes in well under a minute on the CPU.
TINY_CAMPAIGN = ["controller=smoke", "controller.max_candidates=1", "controller.repeats=1",
                 "operator.cpu_workload_limit=1", "operator.gate_size=1", "harness=quick", "harness.warmup=0",
                 "harness.iterations=1", "harness.trials=1"]

HAVE_RAY = importlib.util.find_spec("ray") is not None
NO_RAY = "Ray is not installed (pip install 'kernelopt[scale]')"


def fixture_solution(name: str) -> Solution:
    """``tests/fixtures/solutions/<name>/``: ``solution.json`` plus its source files."""
    folder = SOLUTIONS / name
    meta = json.loads((folder / "solution.json").read_text())
    meta["sources"] = [{"path": p.relative_to(folder).as_posix(), "content": p.read_text()}
                       for p in sorted(folder.rglob("*"))
                       if p.is_file() and p.name != "solution.json" and "__pycache__" not in p.parts]
    return Solution.model_validate(meta)


def rmsnorm_request(solution: Solution, batch_sizes: tuple[int, ...] = (1, 7),
                    timeout_s: float = 120.0) -> EvalRequest:
    """An rmsnorm_h4096 request over the library workloads with these batch sizes, tiny settings."""
    op = load_operator("rmsnorm_h4096")
    by_batch = {w.axes["batch_size"]: w for w in op.workloads}
    return EvalRequest(definition=op.definition, solution=solution,
                       workloads=[by_batch[b] for b in batch_sizes],
                       settings=HarnessSettings(**TINY_SETTINGS, timeout_s=timeout_s))


def statuses(result) -> list[str]:
    """Status names of an EvalResult's workloads, in order."""
    return [r.status.value for r in result.results]


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(args: list[str], cwd: Path, timeout: int = 600,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m kernelopt.cli.main ARGS`` in ``cwd`` with GPUs hidden."""
    full = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONUNBUFFERED": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "kernelopt.cli.main", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=timeout, check=False)


def postgres_bin() -> Path | None:
    """Folder holding ``initdb``/``pg_ctl`` (PATH, then Debian's /usr/lib/postgresql/<v>/bin)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


def needs_postgres() -> list:
    """The skip marks of a test module that starts PostgreSQL (binaries, psycopg2, and a user to run it as)."""
    import importlib.util
    import os

    import pytest

    return [
        pytest.mark.skipif(postgres_bin() is None,
                           reason="PostgreSQL is not installed (Debian: apt-get install postgresql)"),
        pytest.mark.skipif(importlib.util.find_spec("psycopg2") is None,
                           reason="psycopg2 is not installed (pip install 'kernelopt[scale]')"),
        pytest.mark.skipif(os.geteuid() == 0 and shutil.which("runuser") is None,
                           reason="running as root without runuser: PostgreSQL refuses root and cannot be "
                                  "started as another user"),
    ]
