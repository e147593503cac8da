"""Seed kernels: load ``operators/<def>/solutions/seeds/<seed>/`` and instantiate them.

A seed folder holds ``seed.json`` (search space, defaults, constraints, directions; see
``docs/contracts.md``) and the kernel sources. The entry file carries exactly one line
``PARAMS = {...}  # kernelopt:params``; instantiating a seed rewrites that line with concrete values.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.data.loader import DataError, parse_model
from kernelopt.data.solution import BuildSpec, Solution, SourceFile

SEED_FILE = "seed.json"
#: Files of a seed folder that are not kernel sources (the seed's spec and its test points).
NOT_SOURCES = frozenset({SEED_FILE, "points.json"})
TARGET_HARDWARE = ["H200", "CPU-interpreter"]
AUTHOR = "kernelopt-offline"
PARAMS_LINE = re.compile(r"^PARAMS\s*=\s*(\{.*\})\s*#\s*kernelopt:params\s*$", re.MULTILINE)
STEP_MOVES = ("+1", "-1")
Scalar = int | float | str | bool | None


class DirectionSpec(BaseModel):
    """One optimisation direction: parameter moves (``"+1"``/``"-1"`` step, or a literal value)."""

    model_config = ConfigDict(extra="forbid")
    description: str = ""
    moves: dict[str, Scalar] = Field(min_length=1)
    #: the kernel this direction acts on, for a solution of several kernels: a part of its name as a profile
    #: shows it (e.g. ``_o_kernel``); the controller prefers the directions of a band's dominant kernel
    kernel: str | None = Field(default=None, min_length=1)


class SeedSpec(BaseModel):
    """The ``seed.json`` schema."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    description: str = ""
    definition: str | None = None
    language: str = "triton"
    #: where the seed runs (default both the H200 and the Triton CPU interpreter); a CUDA seed says ``["H200"]``
    target_hardware: list[str] = Field(default_factory=lambda: list(TARGET_HARDWARE), min_length=1)
    entry_point: str
    destination_passing_style: bool = True
    dependencies: list[str] = Field(default_factory=list)
    space: dict[str, list[Scalar]] = Field(min_length=1)
    defaults: dict[str, Scalar]
    constraints: list[str] = Field(default_factory=list)
    directions: dict[str, DirectionSpec] = Field(default_factory=dict)


def params_digest(params: dict[str, Any]) -> str:
    """Short stable digest of a parameter point (8 hex characters)."""
    return hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]


def params_literal(params: dict[str, Any]) -> str:
    """Python dict literal for a ``PARAMS`` line (JSON-compatible values, keys in given order)."""
    def lit(v: Any) -> str:
        return json.dumps(v) if isinstance(v, str) else repr(v)
    return "{" + ", ".join(f"{json.dumps(k)}: {lit(v)}" for k, v in params.items()) + "}"


def with_params_line(source: str, params: dict[str, Any]) -> str:
    """``source`` with its ``PARAMS = {...}  # kernelopt:params`` line rewritten to ``params`` (keys in given order)."""
    line = f"PARAMS = {params_literal(params)}  # kernelopt:params"
    return PARAMS_LINE.sub(lambda _m: line, source, count=1)


def read_params_line(source: str, where: str) -> dict[str, Any]:
    """The dict on the single ``PARAMS = {...}  # kernelopt:params`` line of ``source``."""
    hits = PARAMS_LINE.findall(source)
    if len(hits) != 1:
        raise DataError(f"{where}: expected exactly one 'PARAMS = {{...}}  # kernelopt:params' line, "
                        f"found {len(hits)}")
    try:
        value = ast.literal_eval(hits[0])
    except (ValueError, SyntaxError) as exc:
        raise DataError(f"{where}: the PARAMS line is not a dict literal: {exc}") from None
    if not isinstance(value, dict):
        raise DataError(f"{where}: the PARAMS line is not a dict literal")
    return value


@dataclass(frozen=True)
class Seed:
    """A loaded, validated seed kernel.

    Attributes:
        spec: The parsed ``seed.json``.
        path: The seed folder.
        definition: Definition name the seed implements.
        sources: Relative path -> content of every source file (``seed.json``, ``points.json`` excluded).
    """

    spec: SeedSpec
    path: Path
    definition: str
    sources: dict[str, str]

    @property
    def name(self) -> str:
        """Seed name."""
        return self.spec.name

    @property
    def direction_names(self) -> list[str]:
        """Direction names in declared order."""
        return list(self.spec.directions)

    def satisfies(self, params: dict[str, Any]) -> bool:
        """True when every constraint holds (evaluated with no builtins)."""
        return not self.violations(params)

    def violations(self, params: dict[str, Any]) -> list[str]:
        """Constraints that do not hold for ``params`` (errors count as violations)."""
        bad = []
        for expr in self.spec.constraints:
            try:
                ok = eval(compile(expr, "<constraint>", "eval"), {"__builtins__": {}}, dict(params))
            except Exception:  # noqa: BLE001 - a constraint that cannot be evaluated is not satisfied
                ok = False
            if not ok:
                bad.append(expr)
        return bad

    def in_space(self, params: dict[str, Any]) -> bool:
        """True when ``params`` sets exactly the space's parameters to listed values."""
        return set(params) == set(self.spec.space) and all(params[k] in v for k, v in self.spec.space.items())

    def point_problem(self, point: dict[str, Any], base: dict[str, Any] | None = None) -> str:
        """Why ``point`` (some of the space's parameters, over ``base``: the defaults unless given) is not a valid
        point: unknown parameters, values not listed in the space, or violated constraints; empty when valid."""
        unknown = sorted(set(point) - set(self.spec.space))
        if unknown:
            return f"unknown parameter(s) {unknown} (the space has {list(self.spec.space)})"
        off = {k: v for k, v in point.items() if v not in self.spec.space[k]}
        if off:
            return f"{off} not among the space's values { {k: self.spec.space[k] for k in off} }"
        bad = self.violations({**(self.spec.defaults if base is None else base), **point})
        return f"violates {bad}" if bad else ""

    def valid(self, params: dict[str, Any]) -> bool:
        """In the space and satisfying every constraint."""
        return self.in_space(params) and self.satisfies(params)

    def valid_points(self) -> list[dict[str, Any]]:
        """Every valid point of the space, in the order of the space's product (first parameter slowest)."""
        names = list(self.spec.space)
        points = (dict(zip(names, vals)) for vals in itertools.product(*(self.spec.space[n] for n in names)))
        return [p for p in points if self.satisfies(p)]

    def ordered(self, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` with keys in the space's order."""
        return {k: params[k] for k in self.spec.space}

    def apply_moves(self, params: dict[str, Any], moves: dict[str, Any]) -> dict[str, Any]:
        """``params`` after a direction's moves (steps clamp at the ends of a value list)."""
        out = dict(params)
        for key, move in moves.items():
            values = self.spec.space[key]
            if move in STEP_MOVES:
                i = values.index(out[key]) + (1 if move == "+1" else -1)
                out[key] = values[min(max(i, 0), len(values) - 1)]
            else:
                out[key] = move
        return out

    def move_points(self, params: dict[str, Any], moves: dict[str, Any]) -> list[dict[str, Any]]:
        """Where a direction's ``moves`` lead from ``params``, in the order they are tried: the whole move,
        then its partial moves (:func:`partial_moves`). Points may be invalid or equal to ``params``."""
        return [self.apply_moves(params, m) for m in [moves, *partial_moves(moves)]]

    def live_directions(self, params: dict[str, Any]) -> list[str]:
        """Declared directions (in order) whose move, or one of its partial moves, reaches another valid
        point from ``params``; a direction clamped at the end of its value lists, or whose every
        move breaks a constraint, is dead there (the offline generator would only offer random
        neighbours under its name)."""
        return [name for name, d in self.spec.directions.items()
                if any(p != params and self.valid(p) for p in self.move_points(params, d.moves))]

    def instantiate(self, params: dict[str, Any] | None = None) -> Solution:
        """The seed as a :class:`Solution` at ``params`` (its defaults when ``None``).

        Raises:
            ValueError: ``params`` is outside the space or violates a constraint.
        """
        params = dict(self.spec.defaults if params is None else params)
        if not self.in_space(params):
            raise ValueError(f"seed '{self.name}': params {params} are outside its space {self.spec.space}")
        bad = self.violations(params)
        if bad:
            raise ValueError(f"seed '{self.name}': params {params} violate constraints {bad}")
        params = self.ordered(params)
        entry = self.spec.entry_point.split("::")[0]
        sources = dict(self.sources)
        sources[entry] = with_params_line(sources[entry], params)
        desc = f"{self.spec.description} [params {json.dumps(params)}]".strip()
        live = self.live_directions(params)
        spec = BuildSpec(language=self.spec.language, target_hardware=list(self.spec.target_hardware),
                         entry_point=self.spec.entry_point, dependencies=list(self.spec.dependencies),
                         destination_passing_style=self.spec.destination_passing_style)
        return Solution(name=f"{self.name}_{params_digest(params)}", definition=self.definition, author=AUTHOR,
                        description=desc, spec=spec,
                        sources=[SourceFile(path=p, content=c) for p, c in sorted(sources.items())],
                        kernelopt={"seed": self.name, "params": params, "directions": live,
                                   "direction_kernels": {n: self.spec.directions[n].kernel for n in live
                                                         if self.spec.directions[n].kernel}})


def partial_moves(moves: dict[str, Any]) -> list[dict[str, Any]]:
    """A compound direction's moves on fewer of its parameters: every proper non-empty subset, larger
    subsets first, each in declared order (none for a one-parameter direction)."""
    keys = list(moves)
    return [{k: moves[k] for k in combo} for r in range(len(keys) - 1, 0, -1)
            for combo in itertools.combinations(keys, r)]


def _validate(spec: SeedSpec, where: str) -> None:
    space = spec.space
    for k, values in space.items():
        if not values:
            raise DataError(f"{where}: field 'space.{k}' lists no values")
        if len(set(map(json.dumps, values))) != len(values):
            raise DataError(f"{where}: field 'space.{k}' repeats a value")
    if set(spec.defaults) != set(space):
        raise DataError(f"{where}: field 'defaults' must set exactly the space's parameters {sorted(space)}, "
                        f"got {sorted(spec.defaults)}")
    for k, v in spec.defaults.items():
        if v not in space[k]:
            raise DataError(f"{where}: field 'defaults.{k}' = {v!r} is not in space.{k} {space[k]}")
    for i, expr in enumerate(spec.constraints):
        try:
            ast.parse(expr, mode="eval")
        except SyntaxError as exc:
            raise DataError(f"{where}: field 'constraints[{i}]' is not a Python expression: {exc.msg}") from None
    for name, d in spec.directions.items():
        for k, v in d.moves.items():
            if k not in space:
                raise DataError(f"{where}: field 'directions.{name}.moves.{k}' names no space parameter")
            if v not in STEP_MOVES and v not in space[k]:
                raise DataError(f"{where}: field 'directions.{name}.moves.{k}' = {v!r} is neither "
                                f"'+1'/'-1' nor a value of space.{k}")


def load_seed(path: str | Path, definition: str | None = None) -> Seed:
    """Load and validate one seed folder.

    Args:
        path: The seed folder (holding ``seed.json``).
        definition: Definition name; default: ``seed.json``'s ``definition``, else the folder
            three levels up (``operators/<def>/solutions/seeds/<seed>``).

    Raises:
        DataError: a malformed seed; the message names the file and field.
    """
    folder = Path(path)
    where = str(folder / SEED_FILE)
    if not (folder / SEED_FILE).is_file():
        raise DataError(f"{where}: file not found")
    try:
        raw = json.loads((folder / SEED_FILE).read_text())
    except json.JSONDecodeError as exc:
        raise DataError(f"{where}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    spec = parse_model(SeedSpec, raw, where)
    _validate(spec, where)
    sources = {p.relative_to(folder).as_posix(): p.read_text()
               for p in sorted(folder.rglob("*"))
               if p.is_file() and p.name not in NOT_SOURCES and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    entry = spec.entry_point.split("::")[0]
    if entry not in sources:
        raise DataError(f"{where}: field 'entry_point' names '{entry}', which is not in {folder}")
    read_params_line(sources[entry], str(folder / entry))
    defn = definition or spec.definition or folder.resolve().parents[2].name
    seed = Seed(spec=spec, path=folder, definition=defn, sources=sources)
    if not seed.satisfies(spec.defaults):
        raise DataError(f"{where}: field 'defaults' violates constraints {seed.violations(spec.defaults)}")
    return seed


def seeds_dir(operator: str, root: str | Path | None = None) -> Path:
    """``<root>/<operator>/solutions/seeds`` (root: the operator library in effect)."""
    if root is None:
        from kernelopt.operators import operators_root

        root = operators_root()
    return Path(root) / operator / "solutions" / "seeds"


def load_seeds(operator: str, root: str | Path | None = None) -> list[Seed]:
    """Every seed of an operator, sorted by name.

    Raises:
        DataError: no seed folder, or a malformed seed.
    """
    base = seeds_dir(operator, root)
    folders = sorted(p.parent for p in base.glob(f"*/{SEED_FILE}"))
    if not folders:
        raise DataError(f"{base}: no seeds (expected <seed>/{SEED_FILE} folders) for operator '{operator}'")
    seeds = [load_seed(f, definition=operator) for f in folders]
    names = [s.name for s in seeds]
    if len(set(names)) != len(names):
        raise DataError(f"{base}: duplicate seed names {sorted(names)}")
    return sorted(seeds, key=lambda s: s.name)
