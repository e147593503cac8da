"""Shared helpers for the adversarial corpus: load a corpus solution, build a small request."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # CPU: Triton kernels run in the interpreter

from kernelopt.data import EvalRequest, HarnessSettings, Solution
from kernelopt.operators import load_operator

CORPUS = Path(__file__).resolve().parent
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

#: Quick guard settings for CPU: every guard that is on by default, no reference timing.
QUICK = {"warmup": 1, "iterations": 3, "trials": 2, "time_reference": False}


def corpus_solution(kind: str, name: str) -> Solution:
    """``tests/adversarial/<kind>/<name>/``: ``solution.json`` plus every other file as a source."""
    folder = CORPUS / kind / name
    meta = json.loads((folder / "solution.json").read_text())
    meta["sources"] = [
        {"path": p.relative_to(folder).as_posix(), "content": p.read_text()}
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "solution.json" and "__pycache__" not in p.parts
    ]
    return Solution.model_validate(meta)


def request_for(solution: Solution, sizes: tuple[int, ...] = (1,), **settings) -> EvalRequest:
    """A request on the library workloads of the solution's definition whose var axis is in ``sizes``."""
    op = load_operator(solution.definition)
    axis = op.definition.var_axes[0]
    by_size = {w.axes[axis]: w for w in op.workloads}
    workloads = [by_size[s] for s in sizes] if all(s in by_size for s in sizes) else op.workloads[:1]
    return EvalRequest(definition=op.definition, solution=solution, workloads=workloads,
                       settings=HarnessSettings(**{**QUICK, **settings}))
