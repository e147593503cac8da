"""Human-authored skills (``skills/*.md``): load, validate, select by operator/mode/evidence, render."""

from kernelopt.skills.loader import SKILLS_DIR, load_skills, parse_skill, render, select_skills
from kernelopt.skills.model import Condition, Skill, SkillError

__all__ = ["SKILLS_DIR", "Condition", "Skill", "SkillError", "load_skills", "parse_skill", "render",
           "select_skills"]
