"""Persistent programs over a grouped GEMM's tile table, for solutions whose tables put the tiles with rows first.

A solution carries this file in its sources (seed folders link it as ``persistent_tiles.py``); it imports torch and
triton only. A persistent GEMM launch has grid (P, N blocks); program (p, n) walks table entries p, p + P, ... and
stops at the first whose row count is 0 (``rows_at`` reads a count, 0 past the table's end). ``programs_per_block``
sizes P from the SM count: at most ``per_sm`` programs per SM over all N blocks, and never more than the table's
entries. Under the Triton interpreter (``TRITON_INTERPRET=1``) or on a CPU device ``INTERPRET_SMS`` SMs are assumed, so
a small test call still makes every program walk several tiles.
"""

import os

import torch
import triton
import triton.language as tl

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"
#: SMs assumed under the interpreter (programs run one after another there)
INTERPRET_SMS = 4


@triton.jit
def rows_at(tile_ptr, t, n_tiles):
    """Row count of (expert, first row, rows) table entry ``t``; 0 past the table's ``n_tiles`` entries."""
    return tl.where(t < n_tiles, tl.load(tile_ptr + tl.minimum(t, n_tiles - 1) * 3 + 2), 0)


def programs_per_block(per_sm: float, n_tiles: int, n_blocks: int, device: torch.device) -> int:
    """P = floor(per_sm x SMs / n_blocks), between 1 and ``n_tiles``."""
    sms = INTERPRET_SMS if _INTERPRET or device.type != "cuda" else \
        torch.cuda.get_device_properties(device).multi_processor_count
    return max(1, min(n_tiles, int(per_sm * sms // n_blocks)))
