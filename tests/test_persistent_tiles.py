"""``operators/_solution_lib/persistent_tiles.py``: the persistent GEMM launches' program count (the MoE seeds q8pe and
q8td size their grids with it; their interpreter tests run the programs' walk over the tile table)."""

from __future__ import annotations

import os
from pathlib import Path

import torch
from operator_helpers import load_script

if not torch.cuda.is_available():  # as the other CPU tests: triton first imported in interpreter mode; never on a
    os.environ.setdefault("TRITON_INTERPRET", "1")  # GPU machine (set there at collection, it sent every later
    # in-process GPU test of `pytest -m gpu tests` to the interpreter: H200 call EH, 2026-12-04)
REPO = Path(__file__).resolve().parents[1]
LIB = load_script("kopt_persistent_tiles", REPO / "operators" / "_solution_lib" / "persistent_tiles.py")


def test_programs_per_block_is_the_floor_of_per_sm_times_sms_over_blocks_within_the_table() -> None:
    cpu = torch.device("cpu")  # INTERPRET_SMS (4) SMs assumed off a GPU
    assert LIB.INTERPRET_SMS == 4
    assert LIB.programs_per_block(2, 100, 2, cpu) == 4      # floor(2 x 4 / 2)
    assert LIB.programs_per_block(2, 100, 3, cpu) == 2      # floor(8 / 3): at most per_sm x SMs programs in all
    assert LIB.programs_per_block(1, 100, 16, cpu) == 1     # never fewer than one per N block
    assert LIB.programs_per_block(8, 3, 1, cpu) == 3        # never more than the table's entries
