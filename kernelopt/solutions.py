"""Build FlashInfer ``Solution`` objects from source folders (torch-free).

Two entry points:

* :func:`solution_from_folder` - every source file under a folder becomes a ``SourceFile``.
* :func:`solution_from_seed` - a seed kernel folder (``operators/<def>/solutions/seeds/<seed>/``,
  see ``docs/contracts.md``) instantiated at one parameter point: the entry file's single
  ``PARAMS = {...}  # kernelopt:params`` line is rewritten with the chosen values.

The search over seed parameters belongs to ``kernelopt.generators``; this module only turns a
folder (plus, for seeds, one parameter point) into a ``Solution``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Iterable

from kernelopt.data.solution import BuildSpec, Language, Solution, SourceFile

PARAMS_MARKER = "# kernelopt:params"
SOURCE_SUFFIXES = (".py", ".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".hpp")
_SKIP_FILES = {"seed.json", "README.md"}
_PARAMS_RE = re.compile(r"^PARAMS\s*=\s*(\{.*\})\s*" + re.escape(PARAMS_MARKER) + r"\s*$")


class SeedError(ValueError):
    """A seed folder or parameter point is malformed; the message names the file/field."""


def read_sources(folder: str | Path, suffixes: Iterable[str] = SOURCE_SUFFIXES) -> list[SourceFile]:
    """All source files below ``folder`` (sorted, relative POSIX paths; caches and seed.json skipped)."""
    root = Path(folder)
    if not root.is_dir():
        raise SeedError(f"{root}: not a folder")
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or p.name in _SKIP_FILES or "__pycache__" in rel.parts:
            continue
        if p.suffix in tuple(suffixes):
            out.append(SourceFile(path=rel.as_posix(), content=p.read_text()))
    if not out:
        raise SeedError(f"{root}: no source files ({', '.join(suffixes)})")
    return out


def solution_from_folder(
    folder: str | Path, *, name: str, definition: str, language: Language | str, entry_point: str,
    destination_passing_style: bool = True, target_hardware: Iterable[str] = ("cuda",),
    author: str = "kernelopt", description: str | None = None, dependencies: Iterable[str] = (),
    **extra: Any,
) -> Solution:
    """A ``Solution`` holding every source file under ``folder``.

    Args:
        folder: directory with the sources (the entry file must be among them).
        name: solution name.
        definition: definition name the solution implements.
        language: build language (``triton``, ``python``, ...).
        entry_point: ``"<file>::<function>"``.
        destination_passing_style: whether outputs are passed in pre-allocated.
        target_hardware: informational hardware list.
        author: author string.
        description: optional free text.
        dependencies: build dependencies.
        **extra: extra top-level keys kept on the model (e.g. ``kernelopt={...}``).
    """
    spec = BuildSpec(language=Language(language), target_hardware=list(target_hardware),
                     entry_point=entry_point, dependencies=list(dependencies),
                     destination_passing_style=destination_passing_style)
    fields: dict[str, Any] = dict(name=name, definition=definition, author=author, spec=spec,
                                  sources=read_sources(folder), **extra)
    if description is not None:
        fields["description"] = description
    try:
        return Solution(**fields)
    except ValueError as exc:
        raise SeedError(f"{folder}: {exc}") from None


def _literal(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (int, float, str)):
        return json.dumps(value)
    raise SeedError(f"parameter value {value!r} is not an int, float, str, bool or None")


def render_params_line(params: dict[str, Any]) -> str:
    """The ``PARAMS = {...}  # kernelopt:params`` line for ``params`` (a valid Python literal)."""
    body = ", ".join(f"{json.dumps(str(k))}: {_literal(v)}" for k, v in params.items())
    return f"PARAMS = {{{body}}}  {PARAMS_MARKER}"


def _params_line_index(source: str, where: str) -> int:
    hits = [i for i, line in enumerate(source.splitlines()) if PARAMS_MARKER in line]
    if len(hits) != 1:
        raise SeedError(f"{where}: expected exactly one '{PARAMS_MARKER}' line, found {len(hits)}")
    return hits[0]


def read_params(source: str, where: str = "<source>") -> dict[str, Any]:
    """Parse the dict literal on the entry file's params line."""
    line = source.splitlines()[_params_line_index(source, where)]
    m = _PARAMS_RE.match(line)
    if not m:
        raise SeedError(f"{where}: params line must read 'PARAMS = {{...}}  {PARAMS_MARKER}': {line!r}")
    try:
        value = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError) as exc:
        raise SeedError(f"{where}: params line is not a literal dict: {exc}") from None
    if not isinstance(value, dict):
        raise SeedError(f"{where}: PARAMS is not a dict")
    return value


def set_params(source: str, params: dict[str, Any], where: str = "<source>") -> str:
    """``source`` with its params line replaced by ``params`` (all other lines untouched)."""
    lines = source.splitlines(keepends=True)
    i = _params_line_index(source, where)
    ending = "\n" if lines[i].endswith("\n") else ""
    lines[i] = render_params_line(params) + ending
    return "".join(lines)


def load_seed_spec(seed_dir: str | Path) -> dict[str, Any]:
    """Read ``seed.json`` of a seed folder (JSON errors name the file)."""
    path = Path(seed_dir) / "seed.json"
    try:
        spec = json.loads(path.read_text())
    except FileNotFoundError:
        raise SeedError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise SeedError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    for key in ("name", "entry_point", "space", "defaults"):
        if key not in spec:
            raise SeedError(f"{path}: missing field '{key}'")
    return spec


def params_key(params: dict[str, Any]) -> str:
    """Short stable id of a parameter point (8 hex digits)."""
    return hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]


def solution_from_seed(seed_dir: str | Path, params: dict[str, Any] | None = None,
                       definition: str | None = None) -> Solution:
    """Instantiate a seed kernel at ``defaults`` updated with ``params``.

    The definition name defaults to the ``operators/<def>/solutions/seeds/<seed>`` folder layout.
    Unknown parameter names raise :class:`SeedError`; values are not checked against the space
    (the generator owns that). The result carries ``kernelopt={"seed", "params"}``.
    """
    root = Path(seed_dir)
    spec = load_seed_spec(root)
    point = dict(spec["defaults"])
    unknown = sorted(set(params or {}) - set(spec["space"]))
    if unknown:
        raise SeedError(f"{root / 'seed.json'}: unknown parameters {unknown}; known {sorted(spec['space'])}")
    point.update(params or {})
    if definition is None:
        definition = root.resolve().parents[2].name
    sol = solution_from_folder(
        root, name=f"{spec['name']}_{params_key(point)}", definition=definition,
        language=spec.get("language", "triton"), entry_point=spec["entry_point"],
        destination_passing_style=spec.get("destination_passing_style", True),
        description=spec.get("description"), author="kernelopt-seed",
        kernelopt={"seed": spec["name"], "params": point},
    )
    entry = sol.spec.entry_file
    for s in sol.sources:
        if s.path == entry:
            s.content = set_params(s.content, point, where=str(root / entry))
    return sol
