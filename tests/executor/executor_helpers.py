"""Shared helpers for the executor tests: fixture solutions and small rmsnorm_h4096 requests."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from kernelopt.data import EvalRequest, HarnessSettings, Solution
from kernelopt.operators import load_operator

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "executor" / "solutions"
HARNESS_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "solutions"

#: Fault tests: one untimed-ish pass, a short timeout.
FAULT_SETTINGS = dict(warmup=0, iterations=1, trials=1)


def executor_solution(name: str, root: Path = FIXTURES, **subs: str) -> Solution:
    """Load ``<root>/<name>/`` (``solution.json`` + sources), replacing ``__KEY__`` by ``subs[KEY]``
    in every source file and the name (so substituted variants hash differently)."""
    folder = root / name
    meta = json.loads((folder / "solution.json").read_text())
    sources = []
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "solution.json" and "__pycache__" not in p.parts:
            text = p.read_text()
            for key, value in subs.items():
                text = text.replace(f"__{key}__", value)
            sources.append({"path": p.relative_to(folder).as_posix(), "content": text})
    meta["sources"] = sources
    if subs:
        meta["name"] += "_" + "_".join(f"{k}" for k in sorted(subs))
    return Solution.model_validate(meta)


def rmsnorm_request(solution: Solution, batch_sizes: tuple[int, ...] = (7,), timeout_s: float = 60.0,
                    **settings) -> EvalRequest:
    """An rmsnorm_h4096 request over the library workloads with these batch sizes (in order)."""
    op = load_operator("rmsnorm_h4096")
    by_batch = {w.axes["batch_size"]: w for w in op.workloads}
    workloads = [by_batch[b] for b in batch_sizes]
    return EvalRequest(definition=op.definition, solution=solution, workloads=workloads,
                       settings=HarnessSettings(**{**FAULT_SETTINGS, "timeout_s": timeout_s, **settings}))


def process_gone(pid: int, wait_s: float = 5.0) -> bool:
    """True once ``pid`` no longer runs (absent, or a zombie nobody reaped yet)."""
    end = time.monotonic() + wait_s
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state in ("Z", "X"):
                return True
        except (OSError, IndexError):
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.1)


def statuses(result) -> list[str]:
    """Status names of an EvalResult's workloads, in order."""
    return [r.status.value for r in result.results]
