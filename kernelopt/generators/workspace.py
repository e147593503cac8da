"""Per-candidate workspaces for CLI coding agents (Claude Code, Codex).

Layout of a workspace (a fresh temporary folder per candidate):

* ``TASK.md`` - the full prompt of the mode (system + user message);
* ``definition.json``, ``reference.py``, ``workloads.md`` - the task;
* ``SKILLS.md`` - the skills of the mode (absent when none apply);
* ``best/`` or ``references/`` - the current best solution's sources / curated seed kernels
  (Agent-Assisted; Full-Agent sees ``best/`` only when the generator wrote it);
* ``solution/`` - where the agent writes its kernel (``solution/kernel.py`` with ``run``, or any
  files plus ``solution/solution.json``);
* ``evaluate.sh`` / ``evaluate.py`` - ``./evaluate.sh [folder] [hydra overrides...]`` packs the
  folder (default ``solution/``) into a Solution JSON and runs ``kernelopt evaluate`` on it with
  the project's interpreter; traces go to ``traces.jsonl`` in the workspace.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

from kernelopt.data.solution import Solution
from kernelopt.generators.base import GenerationContext
from kernelopt.generators.parse import NoCodeError, make_solution
from kernelopt.generators.prompt import Prompt

REPO_ROOT = Path(__file__).resolve().parents[2]
SOLUTION_DIR = "solution"
SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints"}
SKIP_NAMES = {"solution.json", ".candidate.json"}

EVALUATE_PY = '''"""Evaluate a candidate folder with the kernelopt harness (written by kernelopt)."""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, {repo!r})
from kernelopt.generators.workspace import write_candidate_json  # noqa: E402

args = sys.argv[1:]
folder = HERE / (args.pop(0) if args and "=" not in args[0] else "solution")
path = write_candidate_json(folder, {operator!r}, HERE / ".candidate.json")
cmd = [sys.executable, "-m", "kernelopt.cli.main", "evaluate", "operator={operator}", f"solution={{path}}",
       f"output={{HERE / 'traces.jsonl'}}", *args]
sys.exit(subprocess.call(cmd, cwd={repo!r}))
'''

EVALUATE_SH = '#!/bin/sh\n# Evaluate ./solution (or the folder given first) through `kernelopt evaluate`.\nexec {python} "$(dirname "$0")/evaluate.py" "$@"\n'


def folder_files(folder: Path) -> dict[str, str]:
    """Text files under ``folder`` (relative POSIX path -> content), caches and packing files skipped."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if not p.is_file() or SKIP_PARTS & set(rel.parts) or rel.as_posix() in SKIP_NAMES:
            continue
        try:
            out[rel.as_posix()] = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return out


def folder_spec(folder: Path) -> dict[str, Any]:
    """``spec`` of ``folder/solution.json`` when present (entry point, DPS), else ``{}``."""
    sj = folder / "solution.json"
    if not sj.is_file():
        return {}
    try:
        obj = json.loads(sj.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise NoCodeError(f"{sj}: not valid JSON: {exc}") from None
    spec = obj.get("spec") if isinstance(obj, dict) else None
    if isinstance(obj, dict) and isinstance(obj.get("sources"), list):
        return {"spec": spec or {}, "sources": {s["path"]: s["content"] for s in obj["sources"]}}
    return {"spec": spec or {}}


def collect(folder: Path, ctx: GenerationContext, generator: str, extra: dict[str, Any] | None) -> Solution:
    """The candidate an agent left in ``folder`` (see the module docstring).

    Raises:
        NoCodeError: the folder holds no usable solution.
    """
    info = folder_spec(folder)
    files = info.get("sources") or folder_files(folder)
    spec = info.get("spec") or {}
    return make_solution(files, ctx, generator=generator, entry=spec.get("entry_point"),
                         dps=spec.get("destination_passing_style"), extra=extra)


def write_candidate_json(folder: str | Path, operator: str, out: str | Path) -> Path:
    """Pack ``folder`` into a Solution JSON at ``out`` (used by the workspace's ``evaluate.py``)."""
    from kernelopt.operators import load_operator

    folder, out = Path(folder), Path(out)
    ctx = GenerationContext(definition=load_operator(operator).definition, operator=operator)
    sol = collect(folder, ctx, "workspace", None)
    out.write_text(sol.to_json(indent=2))
    return out


def make_workspace(root: Path, prompt: Prompt, ctx: GenerationContext) -> Path:
    """Fill ``root`` with the task files, an empty ``solution/`` and the evaluate scripts."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "TASK.md").write_text(prompt.text(), encoding="utf-8")
    for rel, content in prompt.files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    (root / SOLUTION_DIR).mkdir(exist_ok=True)
    (root / "evaluate.py").write_text(EVALUATE_PY.format(repo=str(REPO_ROOT), operator=ctx.operator))
    sh = root / "evaluate.sh"
    sh.write_text(EVALUATE_SH.format(python=sys.executable))
    sh.chmod(sh.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return root

