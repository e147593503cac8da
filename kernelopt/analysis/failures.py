"""The repair table: failure-line patterns -> seed directions that give the overrun resource back. Read from
``skills/failures.md`` (YAML front matter ``data.patterns``), not from code; the controller gets it as
``Rules.repair_directions``."""

from __future__ import annotations

from pathlib import Path

from kernelopt.analysis.bottleneck import read_front_matter

SKILL_FILE = Path(__file__).resolve().parents[2] / "skills" / "failures.md"


def load_failure_table(path: Path = SKILL_FILE) -> dict[str, list[str]]:
    """``{pattern: [direction, ...]}`` in the file's order.

    Raises:
        ValueError: no ``data.patterns`` mapping of strings to lists of names, naming the file.
    """
    data = read_front_matter(path).get("data")
    patterns = data.get("patterns") if isinstance(data, dict) else None
    if not isinstance(patterns, dict) or not all(
            isinstance(k, str) and k and isinstance(v, list) and all(isinstance(n, str) for n in v)
            for k, v in patterns.items()):
        raise ValueError(f"{path}: field 'data.patterns' must map failure-line substrings to lists of "
                         "direction names")
    return {k: list(v) for k, v in patterns.items()}

