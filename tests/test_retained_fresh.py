"""Every retained kernel is still what its source packages to today: for each operator named in
``scripts/contest_resume.sh``, the solution it resumes (a seed folder, a seed point or a dispatch JSON) loads to the
same content hash as ``operators/<def>/retained/solution.json``, the Solution the contest traces measured. Editing a
retained (frozen) seed's kernel, or recomposing its dispatch, fails here: the measured figures would no longer be
the code's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernelopt.cli.tasks import load_solution_arg
from kernelopt.data import load_solution

ROOT = Path(__file__).resolve().parents[1]
RESUME = ROOT / "scripts" / "contest_resume.sh"


def _resumed() -> list[tuple[str, str]]:
    """(definition, solution argument) per case of contest_resume.sh: ``D=<def>; S=$D=<path>``."""
    pairs = re.findall(r"D=([A-Za-z0-9_]+); S=\$D=(\S+?);;", RESUME.read_text())
    return [(d, path.replace("$D", d)) for d, path in pairs]


def test_contest_resume_names_all_five_contest_definitions() -> None:
    assert len({d for d, _ in _resumed()}) == 5


@pytest.mark.parametrize("definition, source", _resumed(), ids=[d for d, _ in _resumed()])
def test_the_retained_solution_is_what_its_source_packages_to(definition: str, source: str) -> None:
    retained = load_solution(ROOT / "operators" / definition / "retained" / "solution.json")
    fresh = load_solution_arg(str(ROOT / source), None)
    assert fresh.definition == retained.definition == definition
    assert fresh.hash() == retained.hash(), (
        f"{source} no longer packages to the retained Solution {retained.name}: a frozen seed was edited (add a new "
        f"seed folder or point instead) or the retained kernel must be measured and adopted again")
