"""Static policy: banned runtime library calls in solution sources (REFERENCE §7, "library fallback").

Every operator may have ``operators/<def>/policy.json``::

    {"banned_calls": ["torch.matmul", ...],      # dotted names, matched after resolving import aliases
     "banned_methods": ["matmul", "mm"],         # attribute calls on any object: x.matmul(y)
     "banned_operators": ["@"],                  # Python operators (only "@" is known)
     "banned_imports": ["fla"],                  # modules (and their submodules)
     "banned_cpp_patterns": ["\\bcublas"],       # regular expressions over C++/CUDA sources
     "trusted_authors": ["kernelopt-baselines"], # solutions by these authors are not scanned
     "precision_probe": {"atol": 0, "rtol": 0.008, "required_matched_ratio": 1.0},
     "roofline_inputs": ["A", "B"]}              # inputs every correct kernel reads in full

Python sources are scanned with :mod:`ast` (docstrings and comments never match): ``import x as y``
and ``from a import b as c`` aliases are resolved, so ``F.linear`` is ``torch.nn.functional.linear``.
Every operator also gets :data:`LIBRARY_BANS` (``library`` mode) and, in ``strict`` mode,
:data:`STRICT_BANS` (process and FFI escapes). Not caught by design: names built at run time
(``getattr(torch, "mat" + "mul")``, ``importlib.import_module(s)``, ``exec``) unless strict mode bans
those entry points; C++ sources are only pattern-matched.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelopt.data.loader import DataError, read_json_object
from kernelopt.data.solution import Solution

POLICY_FILE = "policy.json"

#: Always banned (``library`` and ``strict``): runtime calls into kernel libraries.
LIBRARY_BANS: dict[str, list[str]] = {"banned_imports": ["flashinfer", "deep_gemm", "fla"]}

#: Also banned in ``strict`` mode: ways out of the process or around the static scan.
STRICT_BANS: dict[str, list[str]] = {
    "banned_imports": ["subprocess", "ctypes", "cffi", "multiprocessing", "importlib"],
    "banned_calls": ["os.system", "os.popen", "os.fork", "os.execv", "os.execve", "os.execvp", "os.spawnv",
                     "os._exit", "eval", "exec", "__import__", "compile"],
}

_LIST_FIELDS = ("banned_calls", "banned_methods", "banned_operators", "banned_imports",
                "banned_cpp_patterns", "trusted_authors", "roofline_inputs")
_KNOWN_OPERATORS = {"@": ast.MatMult}


@dataclass
class Policy:
    """One operator's static policy (merged with the global bans of the chosen mode)."""

    banned_calls: list[str] = field(default_factory=list)
    banned_methods: list[str] = field(default_factory=list)
    banned_operators: list[str] = field(default_factory=list)
    banned_imports: list[str] = field(default_factory=list)
    banned_cpp_patterns: list[str] = field(default_factory=list)
    trusted_authors: list[str] = field(default_factory=list)
    roofline_inputs: list[str] | None = None
    precision_probe: dict[str, float] | None = None
    source: str = "(built-in defaults)"

    def with_mode(self, mode: str) -> Policy:
        """This policy plus the global bans of ``mode`` (``library`` or ``strict``)."""
        out = Policy(**{k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items()})
        for extra in (LIBRARY_BANS, STRICT_BANS) if mode == "strict" else (LIBRARY_BANS,):
            for key, values in extra.items():
                getattr(out, key).extend(v for v in values if v not in getattr(out, key))
        return out


def load_policy(folder: str | Path) -> Policy:
    """Read ``<folder>/policy.json`` (absent: an empty policy).

    Raises:
        DataError: Malformed JSON, an unknown key or a wrongly typed field (file and field named).
    """
    path = Path(folder) / POLICY_FILE
    if not path.is_file():
        return Policy()
    data = read_json_object(path)
    known = set(_LIST_FIELDS) | {"precision_probe", "description"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DataError(f"{path}: unknown field(s) {unknown}; known: {sorted(known)}")
    for key in _LIST_FIELDS:
        if key in data and not (isinstance(data[key], list) and all(isinstance(v, str) for v in data[key])):
            raise DataError(f"{path}: field '{key}' must be a list of strings")
    for op in data.get("banned_operators", []):
        if op not in _KNOWN_OPERATORS:
            raise DataError(f"{path}: field 'banned_operators' has unknown operator {op!r} "
                            f"(known: {sorted(_KNOWN_OPERATORS)})")
    for pat in data.get("banned_cpp_patterns", []):
        try:
            re.compile(pat)
        except re.error as exc:
            raise DataError(f"{path}: field 'banned_cpp_patterns' has a bad regex {pat!r}: {exc}") from None
    probe = data.get("precision_probe")
    if probe is not None:
        keys = {"atol", "rtol", "required_matched_ratio"}
        if (not isinstance(probe, dict) or set(probe) - keys
                or not all(isinstance(v, (int, float)) and v >= 0 for v in probe.values())):
            raise DataError(f"{path}: field 'precision_probe' must be an object with non-negative "
                            f"numbers among {sorted(keys)}")
    kw: dict[str, Any] = {k: data[k] for k in _LIST_FIELDS if k in data}
    return Policy(**kw, precision_probe=probe, source=str(path))


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _matches(name: str, banned: str) -> bool:
    return name == banned or name.startswith(banned + ".")


def scan_python(path: str, text: str, policy: Policy) -> list[str]:
    """Violations of ``policy`` in one Python source (``path:line: what``)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []  # the build reports syntax errors
    aliases: dict[str, str] = {}
    out: list[str] = []

    def hit(node: ast.AST, what: str) -> None:
        out.append(f"{path}:{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                for b in policy.banned_imports:
                    if _matches(a.name, b):
                        hit(node, f"import of {a.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                aliases[a.asname or a.name] = full
                for b in policy.banned_imports:
                    if _matches(node.module, b) or _matches(full, b):
                        hit(node, f"import from {node.module}")
                        break
    ops = tuple(_KNOWN_OPERATORS[o] for o in policy.banned_operators)
    for node in ast.walk(tree):
        if ops and isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ops):
            hit(node, "operator '@' (matrix multiply)")
        elif isinstance(node, (ast.Attribute, ast.Name)) and isinstance(getattr(node, "ctx", None), ast.Load):
            name = _dotted(node)
            if name is None:
                continue
            head, _, rest = name.partition(".")
            resolved = aliases.get(head, head) + ("." + rest if rest else "")
            for b in policy.banned_calls:
                if resolved == b or (resolved.startswith(b + ".") and isinstance(node, ast.Name)):
                    hit(node, f"use of {b}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in policy.banned_methods):
            hit(node, f"method call .{node.func.attr}()")
    return sorted(set(out), key=out.index)


def scan_solution(solution: Solution, policy: Policy) -> list[str]:
    """Violations of ``policy`` in every source of ``solution`` (empty for trusted authors)."""
    if solution.author in policy.trusted_authors:
        return []
    out: list[str] = []
    for src in solution.sources:
        if src.path.endswith(".py"):
            out += scan_python(src.path, src.content, policy)
        elif src.path.endswith((".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")):
            for pat in policy.banned_cpp_patterns:
                for m in re.finditer(pat, src.content):
                    line = src.content.count("\n", 0, m.start()) + 1
                    out.append(f"{src.path}:{line}: '{m.group(0)}' matches banned pattern {pat!r}")
    return out


def check(solution: Solution, folder: str | Path, mode: str) -> list[str]:
    """Violations of the operator policy in ``folder`` under ``mode`` (``off``: none).

    Raises:
        DataError: The policy file is malformed.
    """
    if mode == "off":
        return []
    policy = load_policy(folder).with_mode(mode)
    return [f"{v} (banned by {policy.source})" for v in scan_solution(solution, policy)]
