"""Shared helpers for the harness tests: fixture solutions, small requests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # CPU: Triton kernels run in the interpreter

from kernelopt.data import EvalRequest, HarnessSettings, Solution
from kernelopt.operators import load_operator

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "solutions"
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def fixture_solution(name: str) -> Solution:
    """Load ``tests/fixtures/solutions/<name>/``: ``solution.json`` (everything but sources) plus every
    other file of the folder as a source."""
    folder = FIXTURES / name
    meta = json.loads((folder / "solution.json").read_text())
    meta["sources"] = [
        {"path": p.relative_to(folder).as_posix(), "content": p.read_text()}
        for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "solution.json"
        and "__pycache__" not in p.parts
    ]
    return Solution.model_validate(meta)


def small_settings(**kw) -> HarnessSettings:
    """Quick settings for CPU tests: warmup 1, iterations 3, trials 2."""
    base = {"warmup": 1, "iterations": 3, "trials": 2}
    base.update(kw)
    return HarnessSettings(**base)


def rmsnorm_request(solution: Solution, batch_sizes=(1, 7), **settings) -> EvalRequest:
    """An rmsnorm_h4096 request on the library workloads with the given batch sizes."""
    op = load_operator("rmsnorm_h4096")
    workloads = []
    for b in batch_sizes:
        workloads.append(next(w for w in op.workloads if w.axes["batch_size"] == b))
    return EvalRequest(definition=op.definition, solution=solution, workloads=workloads,
                       settings=small_settings(**settings))
