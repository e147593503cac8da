"""Which committed kernels an operator's retained solution runs, so that the CPU suite (``make test``) checks those
in the Triton interpreter and leaves the superseded ones (frozen seeds and dispatches of earlier sessions, kept so
their measurements can be rerun) to ``make test-all`` and the GPU suite.

The set is read from ``operators/<def>/retained/solution.json``, never listed by hand: the retained Solution's name
and every specialist its dispatches name (``b<i>: <name>`` lines of each ``dispatch.py``, nested ones included),
with and without their 8-hex content hash. An operator without a retained solution has nothing superseded.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OPERATORS = ROOT / "operators"
_BAND_LINE = re.compile(r"^b\d+: (\S+)", re.MULTILINE)
_HASH_SUFFIX = re.compile(r"_[0-9a-f]{8}$")
#: interpreter check of a frozen kernel that no retained solution runs: deselected by ``make test``
SUPERSEDED = pytest.mark.superseded


@functools.cache
def retained_names(definition: str) -> frozenset[str]:
    """The retained Solution's name and its specialists' (nested dispatches too), each also without its hash."""
    path = OPERATORS / definition / "retained" / "solution.json"
    if not path.exists():
        return frozenset()
    solution = json.loads(path.read_text())
    names = {solution["name"]}
    for source in solution["sources"]:
        if source["path"].endswith("dispatch.py"):
            names.update(_BAND_LINE.findall(source["content"]))
    return frozenset(names | {_HASH_SUFFIX.sub("", n) for n in names})


def superseded_seed(seed_dir: Path) -> bool:
    """A seed folder (``operators/<def>/solutions/seeds/<name>``) its operator's retained solution does not run."""
    names = retained_names(seed_dir.parents[2].name)
    return bool(names) and seed_dir.name not in names


def superseded_dispatch(definition: str, file: Path) -> bool:
    """A committed dispatch JSON that is neither the retained solution nor one of its nested specialists."""
    names = retained_names(definition)
    return bool(names) and json.loads(file.read_text())["name"] not in names


def marked(*values: object, superseded: bool, test_id: str) -> object:
    """``values`` (one per argument name) as a parametrize entry, marked ``superseded`` when it is."""
    return pytest.param(*values, marks=[SUPERSEDED] if superseded else [], id=test_id)


def superseded_if(superseded: bool):  # a decorator
    """A test's decorator: the ``superseded`` mark when ``superseded``, else the test unchanged."""
    return SUPERSEDED if superseded else (lambda test: test)
