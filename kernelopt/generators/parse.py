"""Turn an LLM reply into candidate ``Solution``s.

Accepted shapes (first match wins):

1. A ```json block (or the whole reply) holding a FlashInfer Solution object with ``spec`` and
   ``sources`` (name, definition and author are replaced).
2. Fenced blocks whose first line is ``# file: <path>`` (``// file: <path>``): a multi-file
   solution; the entry is ``kernel.py::run`` unless a ``# entry: <file>::<fn>`` line says otherwise.
3. Otherwise the last ```python block that defines ``run`` becomes ``kernel.py`` (entry
   ``kernel.py::run``).

Destination-passing style is on unless the entry file holds ``# dps: false``. Names are
deterministic: ``<generator>_<first 8 hex of the solution hash>``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from kernelopt.data.solution import Solution
from kernelopt.generators.base import GenerationContext
from kernelopt.generators.keys import holds_key
from kernelopt.generators.seeds import TARGET_HARDWARE

FENCE = re.compile(r"```([\w+.-]*)[^\n]*\n(.*?)```", re.DOTALL)
FILE_LINE = re.compile(r"^\s*(?:#|//)\s*file:\s*(\S+)\s*$")
ENTRY_LINE = re.compile(r"^\s*(?:#|//)\s*entry:\s*(\S+::\w+)\s*$", re.MULTILINE)
DPS_LINE = re.compile(r"^\s*#\s*dps:\s*(true|false)\s*$", re.MULTILINE | re.IGNORECASE)
RUN_DEF = re.compile(r"^\s*def\s+run\s*\(", re.MULTILINE)


class NoCodeError(ValueError):
    """The reply holds no usable solution (the message says what was missing)."""


class KeyInReplyError(NoCodeError):
    """The proposed solution contains a configured API key: it is refused and never stored."""

    def __init__(self) -> None:
        super().__init__("the reply contains an API key (not saved)")


def _language(files: dict[str, str]) -> str:
    if any(p.endswith((".cu", ".cuh")) for p in files):
        return "cuda"
    if any(p.endswith((".cpp", ".cc", ".h", ".hpp")) for p in files):
        return "cpp"
    return "triton" if any("import triton" in c for c in files.values()) else "python"


def _from_json(text: str) -> dict[str, Any] | None:
    candidates = [b for lang, b in FENCE.findall(text) if lang.lower() == "json"]
    stripped = text.strip()
    if stripped.startswith("{"):
        candidates.insert(0, stripped)
    for raw in candidates:
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and "sources" in obj and "spec" in obj:
            return obj
    return None


def _files(text: str) -> tuple[dict[str, str], str | None]:
    """(files, entry) from fenced blocks: ``# file:`` blocks, else the last python block with ``run``."""
    blocks = FENCE.findall(text)
    files: dict[str, str] = {}
    for _lang, body in blocks:
        first, _, rest = body.partition("\n")
        m = FILE_LINE.match(first)
        if m:
            files[m.group(1)] = rest
    if files:
        entry_m = ENTRY_LINE.search(text)
        entry = entry_m.group(1) if entry_m else None
        return files, entry
    pys = [b for lang, b in blocks if lang.lower() in ("python", "py", "") and RUN_DEF.search(b)]
    if pys:
        return {"kernel.py": pys[-1]}, None
    return {}, None


def make_solution(files: dict[str, str], ctx: GenerationContext, *, generator: str, entry: str | None = None,
                  dps: bool | None = None, extra: dict[str, Any] | None = None,
                  description: str | None = None) -> Solution:
    """A deterministically named Solution from source files.

    Raises:
        KeyInReplyError: a source, the entry or the description contains an API key (see ``keys.scrub``).
        NoCodeError: no files, no entry file, or the entry file lacks the entry function.
    """
    if any(holds_key(t) for t in (*files, *files.values(), entry or "", description or "")):
        raise KeyInReplyError
    if not files:
        raise NoCodeError("no source files")
    if entry is None:
        pys = sorted(p for p in files if p.endswith(".py"))
        entry = ("kernel.py" if "kernel.py" in files or not pys else pys[0]) + "::run"
    path, fn = entry.split("::", 1)
    if path not in files:
        raise NoCodeError(f"entry file '{path}' is not among the files {sorted(files)}")
    if path.endswith(".py") and not re.search(rf"^\s*def\s+{re.escape(fn)}\s*\(", files[path], re.MULTILINE):
        raise NoCodeError(f"entry file '{path}' does not define '{fn}(...)'")
    if dps is None:
        m = DPS_LINE.search(files[path])
        dps = m is None or m.group(1).lower() == "true"
    payload: dict[str, Any] = {
        "name": "pending", "definition": ctx.definition.name, "author": generator,
        "description": description or f"written by the {generator} generator",
        "spec": {"language": _language(files), "target_hardware": list(TARGET_HARDWARE), "entry_point": entry,
                 "destination_passing_style": dps},
        "sources": [{"path": p, "content": c} for p, c in sorted(files.items())],
    }
    if extra is not None:
        payload["kernelopt"] = extra
    try:
        sol = Solution.model_validate(payload)
    except ValidationError as exc:
        raise NoCodeError(f"the files do not form a valid solution: {exc.errors()[0]['msg']}") from None
    return sol.model_copy(update={"name": f"{generator}_{sol.hash()[:8]}"})


def parse_response(text: str, ctx: GenerationContext, *, generator: str = "llm",
                   extra: dict[str, Any] | None = None) -> list[Solution]:
    """Solutions in an LLM reply (see the module docstring).

    Args:
        text: The reply text.
        ctx: The context the request was built from (definition name).
        generator: Generator name (author and name prefix).
        extra: The ``kernelopt`` extra to attach (generator, model, usage...).

    Raises:
        NoCodeError: nothing usable in the reply.
    """
    if not text or not text.strip():
        raise NoCodeError("the reply is empty")
    obj = _from_json(text)
    if obj is not None:
        spec = obj.get("spec") or {}
        try:
            files = {s["path"]: s["content"] for s in obj["sources"]}
        except (TypeError, KeyError):
            raise NoCodeError("the JSON solution's sources are not [{path, content}, ...]") from None
        return [make_solution(files, ctx, generator=generator, entry=spec.get("entry_point"),
                              dps=spec.get("destination_passing_style"), extra=extra,
                              description=obj.get("description"))]
    files, entry = _files(text)
    if not files:
        raise NoCodeError("no fenced code block with a `def run(...)` and no `# file:` blocks in the reply "
                          f"({len(text)} characters)")
    return [make_solution(files, ctx, generator=generator, entry=entry, extra=extra)]
