"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8ex`` seed (``q8ex.py``, over ``q8rt.py``, ``q8.py`` and
``base.py``) with the GEMMs' programs ordered so that a group of tiles finishes all its N blocks before the next group.

Why. q8's GEMM1 grid is (tiles, N blocks) and CUDA dispatches it tile-fastest: the programs running at once share an
N block and walk every tile, so each tile's gathered activations (64 rows x 7,168 FP8 = 458 KB) are read once per N
block, 16 times, from wherever they are by then. At 14,107 tokens the ~250 tiles' activations are ~116 MB, twice the
H200's L2 (60 MB): the re-reads come from DRAM. Call BV's Nsight Compute profile of that call
(``benchmarks/results/profiles_v/profile_moe_large_bv.json``) has GEMM1 moving ~2.2 GB from DRAM (26 % of peak over
1.72 ms) where its operands are ~1.1 GB (each local expert's 29 MB of W1 once, the activations once, the FP8
intermediate), at one resident program per SM and 35 % SM throughput: its K loop waits on loads.

Here GEMM1's grid is (``GROUP_T``, N blocks, groups of GROUP_T tiles), which CUDA dispatches x fastest and z last:
a group's tiles at every N block before the next group, so the ~132 programs running at once cover about 132 / 16
tiles x all 16 N blocks: their activations are read from DRAM once and then from L2, and a group's tiles are mostly
one expert's, whose W1 (29 MB) stays in L2 across the group. Each program is q8's GEMM1 kernel, unchanged, called as
a device function with the table read from its group's first entry (its ``program_id(0)`` is then the tile within
the group, ``program_id(1)`` the N block); programs past the last tile return. ``GROUP_T=0`` is q8's (tiles, N
blocks) grid.

``GROUP_T2``: GEMM2 in the same groups (grid (GROUP_T2, N blocks, groups)). Its tiles' FP8 intermediate (~29 MB at
14,107 tokens) fits the L2, but the programs running at once then share a local expert's W2 (14.7 MB) across the
group's tiles; call BV's profile has GEMM2 moving ~1.7 GB from DRAM for ~0.9 GB of operands and its fp32 rows.
``GROUP_T2=0`` is q8's grid.
"""

import triton
import triton.language as tl

from . import q8ex as _ex
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 0, "GROUP_T": 8, "GROUP_T2": 8}  # kernelopt:params

_rt = _ex._rt
_q8 = _ex._q8


# q8's GEMM kernels, called below as device functions: their program_id 0 / 1 are the tile and the N block
_gemm1 = _q8._gemm1_swiglu_q8_kernel
_gemm2 = _q8._gemm2_q8_kernel


@triton.jit
def _gemm1_grouped_kernel(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T, n_tiles,
                          H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr,
                          UPCAST: tl.constexpr, QMAX: tl.constexpr, GROUP_T: tl.constexpr):
    """Grid (GROUP_T, N blocks, groups): q8's GEMM1 program for tile ``program_id(2) * GROUP_T + program_id(0)``
    at N block ``program_id(1)`` (its table read from the group's first entry)."""
    first = tl.program_id(2) * GROUP_T
    if first + tl.program_id(0) < n_tiles:
        _gemm1(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr + first * 3, order_ptr, h_ptr, hs_ptr, T,
               H, I, TOPK, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, UPCAST, QMAX)


@triton.jit
def _gemm2_grouped_kernel(h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, n_tiles,
                          H: tl.constexpr, I: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr, NUM_STAGES: tl.constexpr,
                          UPCAST: tl.constexpr, GROUP_T: tl.constexpr):
    """GEMM2 as GEMM1 above: grid (GROUP_T, N blocks, groups), q8's GEMM2 program for tile ``program_id(2) * GROUP_T
    + program_id(0)`` at N block ``program_id(1)``."""
    first = tl.program_id(2) * GROUP_T
    if first + tl.program_id(0) < n_tiles:
        _gemm2(h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr + first * 3, y_ptr,
               H, I, BLOCK_M, BLOCK_N, BLOCK_K, SCALE_K, NUM_STAGES, UPCAST)


def _launch_table(kernels: dict, grouped1, grouped2) -> dict:
    """q8ex's launch table with GEMM1 on ``grouped1`` while ``GROUP_T`` > 0 and GEMM2 on ``grouped2`` while
    ``GROUP_T2`` > 0."""

    def gemm1(grid, *args, **kw):  # (a, a_scale, w, w_scale, table, order, h, h_scale, T)
        group = int(PARAMS["GROUP_T"])
        if group <= 0:
            return kernels["gemm1"][grid](*args, **kw)
        return grouped1[(group, grid[1], triton.cdiv(grid[0], group))](*args, grid[0], **kw, GROUP_T=group)

    def gemm2(grid, *args, **kw):  # (h, h_scale, w2, w2_scale, table, y)
        group = int(PARAMS["GROUP_T2"])
        if group <= 0:
            return kernels["gemm2"][grid](*args, **kw)
        return grouped2[(group, grid[1], triton.cdiv(grid[0], group))](*args, grid[0], **kw, GROUP_T=group)

    return {**kernels, "gemm1": _rt._Grid(gemm1), "gemm2": _rt._Grid(gemm2)}


# this package's own copies of q8ex, q8rt and q8 read this seed's PARAMS; q8's entry point launches the GEMMs above
_ex.PARAMS = PARAMS
_rt.PARAMS = PARAMS
_q8.PARAMS = PARAMS
# q8ex's launch table (its bf16 GEMM2 rows) over this one over q8rt's
_q8._LAUNCHERS = {"jit": _ex._launch_table(_launch_table(_ex._RT_LAUNCHERS["jit"], _gemm1_grouped_kernel,
                                                         _gemm2_grouped_kernel)),
                  "fast": _ex._launch_table(_launch_table(_ex._RT_LAUNCHERS["fast"], fast(_gemm1_grouped_kernel),
                                                          fast(_gemm2_grouped_kernel)))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
