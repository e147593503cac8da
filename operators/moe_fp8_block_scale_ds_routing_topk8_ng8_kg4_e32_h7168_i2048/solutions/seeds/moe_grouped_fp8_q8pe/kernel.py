"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8ex`` seed (``q8ex.py``, over ``q8rt.py``, ``q8.py`` and
``base.py``) with the long calls' GEMMs as persistent programs that stop at the last tile with rows: the exact grid's
work without its host sync.

Why. q8ex's ``LONG_GRID="exact"`` launches the long calls' GEMMs over the tiles that exist, which needs their count on
the host: one ``count_nonzero`` and a device-to-host copy after the tile table. On the H200 (2026-12-02 call BW,
``benchmarks/results/span_anatomy_h200_moe_new_bw.md``) that wait leaves the GPU idle 186 us between the tile table
and GEMM1 at 14,107 tokens (the host issues four small torch kernels, the copy, then GEMM1), and at 901 tokens the
call took 0.859 ms against q8rt's 0.674 (38 % of its span idle). The bound grid it replaces, (tiles for every pair
local, N blocks), ran ~86 % of its programs on tiles without rows (call BV's Nsight Compute profile).

Here, for calls of more than ``TILES_MAX_PAIRS`` routed pairs, each GEMM is launched over (P, N blocks) programs,
P = min(the tile bound, floor(``WAVES`` x SMs / N blocks)), fixed on the host before the routing runs. Program
(p, n) runs q8's GEMM kernel, unchanged, called as a device function, for tiles p, p + P, p + 2P, ... at N block
n, and stops at the first tile whose row count is 0: the tiles with rows are the table's first entries (experts in
order, each with ``cdiv(rows, BLOCK_M)`` tiles, rows 0 after; q8ex's test checks it on both tile tables). The frozen
kernel reads its tile as ``program_id(0)``'s table entry, so it is handed the table at ``(t - p)`` entries on. No
host sync, no program without rows; shorter calls are q8rt's. ``WAVES``: programs per SM, at most (one is resident
at a time at q8's 8-warp tiles, so 1 is one wave; the N blocks rarely divide the SMs: GEMM2's 56 leave 20 of 132 SMs
idle at 1, and more waves trade that for a tail). ``Y_BF16`` as q8ex (GEMM2's rows in bf16).
"""

import torch
import triton
import triton.language as tl

from . import q8ex as _ex
from .base import TILES_MAX_PAIRS, TOP_K
from .fastlaunch import fast
from .persistent_tiles import programs_per_block, rows_at

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "bound", "Y_BF16": 0, "WAVES": 2}  # kernelopt:params

_rt = _ex._rt
_q8 = _ex._q8

# q8's GEMM kernels, called below as device functions: their program_id 0 / 1 are the tile and the N block
_gemm1 = _q8._gemm1_swiglu_q8_kernel
_gemm2 = _q8._gemm2_q8_kernel


@triton.jit
def _gemm1_persistent_kernel(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T, n_tiles,
                             H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr,
                             UPCAST: tl.constexpr, QMAX: tl.constexpr):
    """Grid (P, N blocks): q8's GEMM1 program for tiles ``program_id(0) + j * P`` at N block ``program_id(1)``,
    up to the first tile without rows."""
    p = tl.program_id(0)
    t = p
    rows = rows_at(tile_ptr, t, n_tiles)
    while rows > 0:
        _gemm1(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr + (t - p) * 3, order_ptr, h_ptr, hs_ptr, T,
               H, I, TOPK, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, UPCAST, QMAX)
        t += tl.num_programs(0)
        rows = rows_at(tile_ptr, t, n_tiles)


@triton.jit
def _gemm2_persistent_kernel(h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, n_tiles,
                             H: tl.constexpr, I: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr, NUM_STAGES: tl.constexpr,
                             UPCAST: tl.constexpr):
    """GEMM2 as GEMM1 above: grid (P, N blocks), q8's GEMM2 program for tiles ``program_id(0) + j * P``."""
    p = tl.program_id(0)
    t = p
    rows = rows_at(tile_ptr, t, n_tiles)
    while rows > 0:
        _gemm2(h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr + (t - p) * 3, y_ptr,
               H, I, BLOCK_M, BLOCK_N, BLOCK_K, SCALE_K, NUM_STAGES, UPCAST)
        t += tl.num_programs(0)
        rows = rows_at(tile_ptr, t, n_tiles)


def persistent_programs(n_tiles: int, n_blocks: int, device: torch.device) -> int:
    """P: programs per N block for a long call's GEMM over a table of ``n_tiles`` entries."""
    waves = float(PARAMS["WAVES"])
    if waves <= 0:
        raise ValueError(f"moe_grouped_fp8_q8pe: WAVES={PARAMS['WAVES']!r} must be > 0")
    return programs_per_block(waves, n_tiles, n_blocks, device)


def _launch_table(kernels: dict, persistent1, persistent2) -> dict:
    """q8rt's launch table with the long calls' GEMMs on the persistent kernels above."""

    def gemm1(grid, *args, **kw):  # (a, a_scale, w, w_scale, table, order, h, h_scale, T)
        if args[8] * TOP_K <= TILES_MAX_PAIRS:
            return kernels["gemm1"][grid](*args, **kw)
        p = persistent_programs(grid[0], grid[1], args[4].device)
        return persistent1[(p, grid[1])](*args, grid[0], **kw)

    def gemm2(grid, *args, **kw):  # (h, h_scale, w2, w2_scale, table, y)
        if args[5].shape[0] <= TILES_MAX_PAIRS:
            return kernels["gemm2"][grid](*args, **kw)
        p = persistent_programs(grid[0], grid[1], args[4].device)
        return persistent2[(p, grid[1])](*args, grid[0], **kw)

    return {**kernels, "gemm1": _rt._Grid(gemm1), "gemm2": _rt._Grid(gemm2)}


# this package's own copies of q8ex, q8rt and q8 read this seed's PARAMS; q8's entry point launches the GEMMs above
_ex.PARAMS = PARAMS
_rt.PARAMS = PARAMS
_q8.PARAMS = PARAMS
# q8ex's launch table (its bf16 GEMM2 rows) over this one over q8rt's
_q8._LAUNCHERS = {"jit": _ex._launch_table(_launch_table(_ex._RT_LAUNCHERS["jit"], _gemm1_persistent_kernel,
                                                         _gemm2_persistent_kernel)),
                  "fast": _ex._launch_table(_launch_table(_ex._RT_LAUNCHERS["fast"], fast(_gemm1_persistent_kernel),
                                                          fast(_gemm2_persistent_kernel)))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
