"""The ``Skill`` model: one markdown file with YAML front matter, and its precondition grammar.

Front matter keys (all others are refused): ``name`` (unique str), ``description`` (str), ``kind``
(``rule`` | ``procedure`` | ``tactics`` | ``operator`` | ``table``), ``applies_to`` (operator names,
op_types, ``all``, and hardware tags such as ``h200``), ``modes`` (``full_agent`` and/or
``agent_assisted``), ``preconditions`` (list of ``<key> <op> <value>`` strings) and an optional
``data`` mapping (machine-readable tables).

Precondition grammar: ``<key> <op> <value>`` with ``op`` one of ``==``, ``!=``, ``>=``, ``<=``,
``>``, ``<``, ``in``. ``value`` is a number, a bare word or quoted string, or for ``in`` a list
``[a, b, c]``. A condition whose key is missing from the evidence is not met.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SkillKind = Literal["rule", "procedure", "tactics", "operator", "table"]
SkillMode = Literal["full_agent", "agent_assisted"]
HARDWARE_TAGS = frozenset({"h200", "h100", "hopper", "sm90", "b200", "blackwell", "cpu"})
OPS = ("==", "!=", ">=", "<=", ">", "<", "in")
_COND = re.compile(r"^\s*([A-Za-z_][\w.]*)\s+(==|!=|>=|<=|>|<|in)\s+(.+?)\s*$")


class SkillError(ValueError):
    """A skill file is malformed (the message names the file and the field)."""


def _scalar(text: str) -> Any:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    for cast in (int, float):
        try:
            return cast(t)
        except ValueError:
            pass
    return t


class Condition(BaseModel):
    """One parsed precondition ``key op value``."""

    model_config = ConfigDict(frozen=True)
    key: str
    op: str
    value: Any

    @classmethod
    def parse(cls, text: str) -> Condition:
        """Parse ``<key> <op> <value>``; raises ``ValueError`` naming the text when malformed."""
        m = _COND.match(text)
        if not m:
            raise ValueError(f"precondition {text!r} is not '<key> <op> <value>' with op in {OPS}")
        key, op, raw = m.groups()
        if op == "in":
            raw = raw.strip()
            if not (raw.startswith("[") and raw.endswith("]")):
                raise ValueError(f"precondition {text!r}: 'in' needs a list like [a, b]")
            value: Any = [_scalar(p) for p in raw[1:-1].split(",") if p.strip()]
        else:
            value = _scalar(raw)
        return cls(key=key, op=op, value=value)

    def holds(self, evidence: dict[str, Any]) -> bool:
        """True when the evidence has ``key`` and it satisfies the condition."""
        if self.key not in evidence or evidence[self.key] is None:
            return False
        have = evidence[self.key]
        if self.op == "in":
            return any(_eq(have, v) for v in self.value)
        if self.op == "==":
            return _eq(have, self.value)
        if self.op == "!=":
            return not _eq(have, self.value)
        try:
            a, b = float(have), float(self.value)
        except (TypeError, ValueError):
            return False
        return {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[self.op]


def _eq(a: Any, b: Any) -> bool:
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a).lower() == str(b).lower()


class Skill(BaseModel):
    """One skill: validated front matter plus the markdown body.

    Attributes:
        path: Where it was loaded from (relative to the skills root when possible).
        group: First folder under the root (``""`` for top-level files).
        body: Markdown after the front matter.
    """

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    kind: SkillKind
    applies_to: list[str] = Field(min_length=1)
    modes: list[SkillMode] = Field(min_length=1)
    preconditions: list[str] = Field(default_factory=list)
    data: dict[str, Any] | None = None
    path: str = ""
    group: str = ""
    body: str = ""

    @field_validator("preconditions")
    @classmethod
    def _conds(cls, v: list[str]) -> list[str]:
        for text in v:
            Condition.parse(text)
        return v

    @field_validator("applies_to")
    @classmethod
    def _targets(cls, v: list[str]) -> list[str]:
        return [str(x) for x in v]

    @property
    def conditions(self) -> list[Condition]:
        """Parsed preconditions."""
        return [Condition.parse(t) for t in self.preconditions]

    @property
    def hardware(self) -> set[str]:
        """Hardware tags in ``applies_to`` (empty: any hardware)."""
        return {t.lower() for t in self.applies_to if t.lower() in HARDWARE_TAGS}

    @property
    def targets(self) -> set[str]:
        """Operator names / op_types / ``all`` in ``applies_to``."""
        return {t for t in self.applies_to if t.lower() not in HARDWARE_TAGS}
