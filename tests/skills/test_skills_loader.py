"""The skills library and its loader: front-matter validation, preconditions, selection, rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.operators import CONTEST_OPERATORS, SMALL_OPERATORS, list_operators, load_operator
from kernelopt.skills import Condition, SkillError, load_skills, parse_skill, render, select_skills

CONTEST = list(CONTEST_OPERATORS)
SMALL = list(SMALL_OPERATORS)


def skill_text(**over) -> str:
    meta = {"name": "s1", "description": "d", "kind": "rule", "applies_to": "[all]",
            "modes": "[full_agent, agent_assisted]"}
    meta.update(over)
    head = "\n".join(f"{k}: {v}" for k, v in meta.items())
    return f"---\n{head}\n---\nbody text\n"


def test_library_loads_with_unique_names_and_covers_every_operator():
    skills = load_skills()
    names = [s.name for s in skills]
    assert len(names) == len(set(names))
    for op in CONTEST + SMALL:
        d = load_operator(op).definition
        own = [s for s in skills if s.kind == "operator" and op in s.targets]
        assert own, f"no operator skill for {op}"
        assert all(s.modes == ["agent_assisted"] for s in own), "curated expertise is Agent-Assisted only"
        picked = select_skills(skills, op, d.op_type, "agent_assisted", "h200", {})
        assert {s.name for s in own} <= {s.name for s in picked}
    kinds = {s.kind for s in skills}
    assert {"rule", "procedure", "tactics", "operator", "table"} <= kinds
    table = next(s for s in skills if s.name == "bottleneck_actions")
    assert "memory_bound" in table.data and table.data["memory_bound"]["actions"]
    assert set(CONTEST + SMALL) <= set(list_operators())


def test_full_agent_sees_only_general_rules():
    skills = load_skills()
    picked = select_skills(skills, "rmsnorm_h4096", "rmsnorm", "full_agent", "h200", {"bottleneck": "memory_bound"})
    assert picked and all(s.kind == "rule" and "full_agent" in s.modes for s in picked)
    assert {"anti_cheat", "harness_discipline"} <= {s.name for s in picked}


def test_unknown_key_is_refused_naming_file_and_key(tmp_path: Path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "bad.md").write_text(skill_text(colour="blue"))
    with pytest.raises(SkillError, match=r"g/bad.md.*colour"):
        load_skills(tmp_path)


@pytest.mark.parametrize("over, match", [
    ({"kind": "poem"}, "kind"),
    ({"modes": "[everyone]"}, "modes"),
    ({"preconditions": "['bottleneck ~ memory']"}, "preconditions"),
    ({"applies_to": "[]"}, "applies_to"),
])
def test_invalid_fields_name_the_field(over, match):
    with pytest.raises(SkillError, match=match):
        parse_skill(skill_text(**over), "x.md")


def test_missing_front_matter_and_duplicate_names(tmp_path: Path):
    with pytest.raises(SkillError, match="front matter"):
        parse_skill("# just markdown\n", "plain.md")
    (tmp_path / "a.md").write_text(skill_text())
    (tmp_path / "b.md").write_text(skill_text())
    with pytest.raises(SkillError, match="already used by a.md"):
        load_skills(tmp_path)


@pytest.mark.parametrize("text, evidence, holds", [
    ("bottleneck == memory_bound", {"bottleneck": "memory_bound"}, True),
    ("bottleneck == memory_bound", {"bottleneck": "compute_bound"}, False),
    ("bottleneck != memory_bound", {"bottleneck": "compute_bound"}, True),
    ("band == long", {}, False),
    ("waves >= 1", {"waves": 1.0}, True),
    ("waves < 1", {"waves": 0.4}, True),
    ("waves > 1", {"waves": 0.4}, False),
    ("occupancy <= 0.25", {"occupancy": "0.2"}, True),
    ("band in [short, 'long']", {"band": "long"}, True),
    ("band in [short, medium]", {"band": "long"}, False),
])
def test_precondition_grammar(text, evidence, holds):
    assert Condition.parse(text).holds(evidence) is holds


def test_selection_by_preconditions_hardware_and_groups(tmp_path: Path):
    (tmp_path / "tactics").mkdir()
    (tmp_path / "tactics" / "mem.md").write_text(skill_text(
        name="mem", kind="tactics", modes="[agent_assisted]", preconditions="['bottleneck == memory_bound']"))
    (tmp_path / "tactics" / "hop.md").write_text(skill_text(
        name="hop", kind="tactics", modes="[agent_assisted]", applies_to="[gdn, h200]"))
    (tmp_path / "top.md").write_text(skill_text(name="top", modes="[agent_assisted]"))
    skills = load_skills(tmp_path)
    pick = lambda **kw: [s.name for s in select_skills(skills, **{
        "operator": "gdn_decode_qk4_v8_d128_k_last", "op_type": "gdn", "mode": "agent_assisted",
        "hardware": "h200", "evidence": {}, **kw})]
    assert pick() == ["hop", "top"]
    assert pick(evidence={"bottleneck": "memory_bound"}) == ["hop", "mem", "top"]
    assert pick(hardware="b200") == ["top"]
    assert pick(op_type="moe", operator="moe_x") == ["top"]
    assert pick(groups=["general"]) == ["top"]  # top-level files are not filtered by group
    assert pick(groups=["tactics"], evidence={"bottleneck": "memory_bound"}) == ["hop", "mem", "top"]
    assert pick(mode="full_agent") == []


def test_render_has_a_heading_per_skill():
    skills = load_skills()[:3]
    text = render(skills)
    for s in skills:
        assert f"## Skill: {s.name} ({s.kind})" in text
