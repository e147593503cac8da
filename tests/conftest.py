"""Every test starts from random generators seeded by its own id.

``make test`` runs the files on two processes (pytest-xdist), so the order of tests in a process, and with it
the state of an unseeded generator, changes from run to run: a test that draws from ``torch.randn`` without a
seed saw other draws each time (one failed on some draws, CI of 2026-12-01). Seeding from the test's id makes a
test's draws the same on every run, alone or in any order; a test that wants its own seed still sets it.
"""

from __future__ import annotations

import random
import sys
import zlib

import pytest


@pytest.fixture(autouse=True)
def _seeded_random_generators(request: pytest.FixtureRequest) -> None:
    seed = zlib.crc32(request.node.nodeid.encode())
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed)
    torch = sys.modules.get("torch")  # imported by the test module when it draws; never imported here
    if torch is not None:
        torch.manual_seed(seed)
