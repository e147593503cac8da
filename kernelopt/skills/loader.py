"""Load, select and render skills (torch- and mlflow-free)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from kernelopt.skills.model import Skill, SkillError

SKILLS_DIR: Path = Path(__file__).resolve().parents[2] / "skills"
FRONT_KEYS = frozenset({"name", "description", "kind", "applies_to", "modes", "preconditions", "data"})
HARDWARE_ALIASES = {"h200": {"h200", "hopper", "sm90"}, "h100": {"h100", "hopper", "sm90"},
                    "b200": {"b200", "blackwell"}, "cpu": {"cpu"}}


def parse_skill(text: str, where: str, group: str = "") -> Skill:
    """One skill from markdown text with a ``---`` YAML front-matter block.

    Raises:
        SkillError: no front matter, bad YAML, unknown or invalid keys (names ``where`` and the key).
    """
    if not text.startswith("---"):
        raise SkillError(f"{where}: missing YAML front matter (the file must start with '---')")
    parts = text.split("\n---", 1)
    if len(parts) != 2:
        raise SkillError(f"{where}: front matter is not closed by a '---' line")
    head, body = parts[0][3:], parts[1].split("\n", 1)[1] if "\n" in parts[1] else ""
    try:
        meta = yaml.safe_load(head)
    except yaml.YAMLError as exc:
        raise SkillError(f"{where}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise SkillError(f"{where}: front matter must be a mapping")
    unknown = sorted(set(meta) - FRONT_KEYS)
    if unknown:
        raise SkillError(f"{where}: unknown front-matter key(s) {unknown}; allowed: {sorted(FRONT_KEYS)}")
    if isinstance(meta.get("applies_to"), str):
        meta["applies_to"] = [meta["applies_to"]]
    try:
        return Skill(**meta, path=where, group=group, body=body.strip() + "\n")
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise SkillError(f"{where}: front-matter field '{field}': {err['msg']}") from None


def load_skills(root: str | Path | None = None) -> list[Skill]:
    """Every ``*.md`` skill under ``root`` (default: the repository's ``skills/``), sorted by path.

    ``README.md`` files are documentation, not skills. A skill's group is its first folder
    under the root (top-level files have group ``""``).

    Raises:
        SkillError: a malformed file, or two skills with the same name (both paths named).
    """
    base = Path(root) if root is not None else SKILLS_DIR
    if not base.is_dir():
        raise SkillError(f"{base}: skills folder not found")
    out: list[Skill] = []
    seen: dict[str, str] = {}
    for path in sorted(base.rglob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        rel = path.relative_to(base)
        group = rel.parts[0] if len(rel.parts) > 1 else ""
        skill = parse_skill(path.read_text(encoding="utf-8"), str(rel), group)
        if skill.name in seen:
            raise SkillError(f"{rel}: skill name '{skill.name}' is already used by {seen[skill.name]}")
        seen[skill.name] = str(rel)
        out.append(skill)
    return out


def _hardware_ok(skill: Skill, hardware: str | None) -> bool:
    tags = skill.hardware
    if not tags:
        return True
    if hardware is None:
        return False
    have = HARDWARE_ALIASES.get(hardware.lower(), {hardware.lower()})
    return bool(tags & have)


def select_skills(skills: Iterable[Skill], operator: str, op_type: str | None, mode: str,
                  hardware: str | None = "h200", evidence: dict[str, Any] | None = None,
                  groups: Sequence[str] | None = None) -> list[Skill]:
    """The skills that apply to this operator, mode, hardware and evidence, in load order.

    A skill applies when ``mode`` is in its ``modes``; its targets include ``all``, ``operator`` or
    ``op_type``; its hardware tags (if any) include ``hardware``; and every precondition holds on
    ``evidence``. With ``groups`` (e.g. the agent config's skill list) a skill in a sub-folder must
    be in one of those groups or be named in it; top-level skills are not filtered by group.
    """
    ev = evidence or {}
    picked = []
    for s in skills:
        if mode not in s.modes:
            continue
        if not ({"all", operator} | ({op_type} if op_type else set())) & s.targets:
            continue
        if not _hardware_ok(s, hardware):
            continue
        if groups and s.group and s.group not in groups and s.name not in groups:
            continue
        if all(c.holds(ev) for c in s.conditions):
            picked.append(s)
    return picked


def render(skills: Sequence[Skill]) -> str:
    """Skills as one markdown document (a heading per skill, its description, then its body)."""
    blocks = []
    for s in skills:
        blocks.append(f"## Skill: {s.name} ({s.kind})\n\n_{s.description.strip()}_\n\n{s.body.strip()}\n")
    return "\n".join(blocks)
