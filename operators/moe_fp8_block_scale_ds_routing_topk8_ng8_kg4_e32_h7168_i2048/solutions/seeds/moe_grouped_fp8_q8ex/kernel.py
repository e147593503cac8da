"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8rt`` seed (``q8rt.py``, over ``q8.py`` and ``base.py``)
with the long calls' GEMMs launched over the tiles that exist instead of the tile count's bound.

Why. q8's grids are (tiles, N blocks) with tiles = ``min(pairs, cdiv(pairs, BLOCK_M) + 32)``: the bound for every
routed pair landing on a local expert, fixed on the host before the routing runs. A real call routes about 1 in 8
pairs to this rank's 32 of 256 experts, so most programs read their tile's row count (0) and return. An Nsight
Compute profile of the 14,107-token call (H200, 2026-12-02 call BV,
``benchmarks/results/profiles_v/profile_moe_large_bv.json``) launches GEMM1 over (1,796, 16) and GEMM2 over
(1,796, 56) programs at one resident program per SM (12.5 % theoretical occupancy): about 250 tiles exist, so ~86 %
of the ~129,000 programs only launch, load one table entry and return - ~840 of them in turn on each SM. GEMM2 does
half GEMM1's work (0.41 vs 0.83 TFLOP) in 1.41 vs 1.72 ms, with 3.5 times GEMM1's empty programs.

Here, once the long call's tile table is built (``LONG_TILES="triton"``: q8rt's GPU counting sort; or q8's torch
one), ``LONG_GRID="exact"`` reads the number of tiles with rows back to the host (one ``count_nonzero`` and one
device-to-host copy: the host waits for the routing and the table, ~0.16 ms at 14,107 tokens, then issues GEMM1
while the GPU idles for a launch) and both GEMMs run over exactly those tiles: the tiles with rows are the table's
first entries (experts in order, each with ``cdiv(rows, BLOCK_M)`` tiles; rows 0 after), so the grid's first
dimension is their count and every program the GEMMs' own. ``LONG_GRID="bound"`` is q8rt's. Calls of up to
``TILES_MAX_PAIRS`` routed pairs (the decode rows) are q8rt's as they are: there the bound is within ~40 tiles of
the count and a wait for the host would cost more than the empty programs.

``Y_BF16=1``: GEMM2 stores each routed pair's output row in bf16 instead of fp32 (the store casts its fp32 tile) and
the combine reads those rows (its weighted sum stays fp32). At 14,107 tokens the rows are 404 MB in fp32, written
by GEMM2 and read back by the combine (166 us at 72 % of DRAM peak in call BV's profile); bf16 halves both. The rows'
rounding (2^-9 relative) is far inside the contest tolerance (atol 1, rtol 0.3). ``Y_BF16=0`` is q8's fp32.
"""

import torch

from . import q8rt as _rt

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 0}  # kernelopt:params

_q8 = _rt._q8


def _tiles_exact(topk_idx: torch.Tensor, offset: int, block_m: int):
    """q8rt's long-call tile table; with ``LONG_GRID="exact"`` its tile count is the number of tiles with rows."""
    if PARAMS["LONG_GRID"] not in ("exact", "bound"):
        raise ValueError(f"moe_grouped_fp8_q8ex: LONG_GRID={PARAMS['LONG_GRID']!r} must be 'exact' or 'bound'")
    order, table, pos, n_tiles = _rt._tiles_triton(topk_idx, offset, block_m)
    if PARAMS["LONG_GRID"] == "exact":
        # one sync; at least one program (with no local pair, tile 0 has rows 0 and its programs return)
        n_tiles = max(int(torch.count_nonzero(table[:, 2])), 1)
    return order, table, pos, n_tiles


def _launch_table(kernels: dict) -> dict:
    """q8rt's launch table with, under ``Y_BF16``, GEMM2's output rows and the combine's input a bf16 buffer of
    the fp32 one's shape (allocated while GEMM1 runs: the host issues GEMM2 before GEMM1 ends)."""
    held: dict = {}

    def gemm2(grid, *args, **kw):  # (h, h_scale, w2, w2_scale, table, y, ...)
        held["y"] = None  # this call's rows (a call cut short before its combine leaves nothing for the next)
        if not int(PARAMS["Y_BF16"]):
            return kernels["gemm2"][grid](*args, **kw)
        y = held["y"] = torch.empty(args[5].shape, dtype=torch.bfloat16, device=args[5].device)
        return kernels["gemm2"][grid](*args[:5], y, *args[6:], **kw)

    def combine(grid, *args, **kw):  # (y, pos, rw, output)
        y = held.pop("y", None)
        return kernels["combine"][grid](*((y,) + args[1:] if y is not None else args), **kw)

    return {**kernels, "gemm2": _rt._Grid(gemm2), "combine": _rt._Grid(combine)}


# this package's own copies of the q8rt and q8 modules read this seed's PARAMS; q8's entry point takes its long
# calls' tile table (and so its GEMMs' grid) from the function above
_rt.PARAMS = PARAMS
_q8.PARAMS = PARAMS
_q8._tiles = _tiles_exact
_RT_LAUNCHERS = dict(_q8._LAUNCHERS)  # q8rt's tables, for seeds that put their own launchers under this one's
_q8._LAUNCHERS = {name: _launch_table(table) for name, table in _RT_LAUNCHERS.items()}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
