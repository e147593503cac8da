"""Load FlashInfer-Trace folders and files with errors that name file, line and field."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from kernelopt.data.definition import Definition
from kernelopt.data.solution import Solution
from kernelopt.data.trace import Trace

M = TypeVar("M", bound=BaseModel)


class DataError(ValueError):
    """A data file is malformed; the message names the file, line and field."""


def _fmt(exc: ValidationError, keys: dict[str, str] | None = None) -> str:
    """The first five errors of ``exc`` on one line; ``keys`` renames top-level fields to what the user typed
    (a config key) and adds the value given."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(x) for x in err["loc"]) or "<root>"
        if keys is not None:
            head = str(err["loc"][0]) if err["loc"] else ""
            parts.append(f"{keys.get(head, loc)}: {err['msg']} (got {err.get('input')!r})")
        else:
            parts.append(f"field '{loc}': {err['msg']}")
    more = len(exc.errors()) - 5
    return "; ".join(parts) + (f"; (+{more} more)" if more > 0 else "")


def build_model(model: type[M], keys: dict[str, str], **values: object) -> M:
    """``model(**values)``; a refused value raises :class:`DataError` naming the config key it came from
    (``keys``: field -> key, e.g. ``max_candidates`` -> ``controller.max_candidates``)."""
    try:
        return model(**values)
    except ValidationError as exc:
        raise DataError(_fmt(exc, keys)) from None


def parse_model(model: type[M], data: object, where: str) -> M:
    """Validate ``data`` as ``model``; raise :class:`DataError` prefixed by ``where``."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise DataError(f"{where}: {_fmt(exc)}") from None


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None


def read_json_object(path: str | Path, what: str = "a JSON object") -> dict:
    """Read a JSON file that must hold an object; errors name the file (and line for bad JSON)."""
    p = Path(path)
    data = _read_json(p)
    if not isinstance(data, dict):
        raise DataError(f"{p}: expected {what}, got {type(data).__name__}")
    return data


def load_definition(path: str | Path) -> Definition:
    """Load one definition JSON file."""
    p = Path(path)
    return parse_model(Definition, _read_json(p), str(p))


def load_solution(path: str | Path) -> Solution:
    """Load one solution JSON file."""
    p = Path(path)
    return parse_model(Solution, _read_json(p), str(p))


def parse_jsonl(model: type[M], text: str, where: str) -> list[M]:
    """Validate each non-blank line of JSONL ``text`` as ``model``; errors name ``where:line``."""
    out: list[M] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{where}:{lineno}: malformed JSON: {exc.msg}") from None
        out.append(parse_model(model, obj, f"{where}:{lineno}"))
    return out


def names_folder(path: str | Path) -> bool:
    """``path`` is a folder, or is written as one (``out/``: it was taken for a file named ``out``)."""
    return Path(path).is_dir() or str(path).endswith(("/", os.sep))


def split_unfinished(text: str) -> tuple[str, int]:
    """``text`` of a JSONL file without an unfinished last record, and that record's length in characters (0 when
    none). Every record is a JSON object ending with a newline, so an object's start after the last newline was
    cut mid-write (a run killed while appending); other text there is left for the parser to refuse."""
    cut = text.rfind("\n") + 1
    if not text or text.endswith("\n") or not text[cut:].lstrip().startswith("{"):
        return text, 0
    return text[:cut], len(text) - cut


def load_traces(path: str | Path) -> list[Trace]:
    """Load a JSONL file of traces (workload files are traces with null solution/evaluation)."""
    p = Path(path)
    if not p.exists():
        raise DataError(f"{p}: file not found")
    return parse_jsonl(Trace, p.read_text(), str(p))


def dump_jsonl(records: Iterable[BaseModel], path: str | Path, append: bool = False) -> None:
    """Write models as JSONL (one ``to_dict`` per line)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a" if append else "w") as fh:
        for r in records:
            d = r.to_dict() if hasattr(r, "to_dict") else r.model_dump(mode="json")
            fh.write(json.dumps(d) + "\n")


@dataclass
class TraceSet:
    """Everything under a FlashInfer-Trace root folder."""

    root: Path
    definitions: dict[str, Definition] = field(default_factory=dict)
    workloads: dict[str, list[Trace]] = field(default_factory=dict)
    solutions: dict[str, list[Solution]] = field(default_factory=dict)
    traces: dict[str, list[Trace]] = field(default_factory=dict)

    @classmethod
    def from_path(cls, root: str | Path) -> TraceSet:
        """Load ``definitions/**/*.json``, ``workloads/**/*.jsonl``, ``solutions/**/*.json``,
        ``traces/**/*.jsonl``."""
        r = Path(root)
        if not r.is_dir():
            raise DataError(f"{r}: not a folder")
        ts = cls(root=r)
        for f in sorted(r.glob("definitions/**/*.json")):
            d = load_definition(f)
            if d.name in ts.definitions:
                raise DataError(f"{f}: duplicate definition name '{d.name}'")
            ts.definitions[d.name] = d
        for f in sorted(r.glob("workloads/**/*.jsonl")):
            for t in load_traces(f):
                ts.workloads.setdefault(t.definition, []).append(t)
        for f in sorted(r.glob("solutions/**/*.json")):
            s = load_solution(f)
            ts.solutions.setdefault(s.definition, []).append(s)
        for f in sorted(r.glob("traces/**/*.jsonl")):
            for t in load_traces(f):
                ts.traces.setdefault(t.definition, []).append(t)
        return ts
