"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8td`` seed (``q8td.py``, over ``q8ex.py``, ``q8rt.py``,
``q8.py`` and ``base.py``: the retained kernel's long band since 2026-12-02 call CA) with the exact grid's tile count
read back as one device-to-host copy of the tile table, counted on the host, instead of ``torch.count_nonzero`` on
the device and a copy of its result.

Why. The long calls' GEMMs run over the tiles that exist (``LONG_GRID="exact"``), so the host waits for the tile
table and reads how many tiles have rows. q8ex does it with ``int(torch.count_nonzero(table[:, 2]))``: three small
device launches (the strided column's copy, the comparison, the reduction) and a 4-byte copy, each issued by the
host after the previous one, while the GPU idles. The span anatomy of the retained dispatch on the H200 (2026-12-02
calls CA and CB, ``benchmarks/results/span_anatomy_h200_moe_q8tdg_*.md``) has the GPU idle 65-160 us around those
four steps at 11,948-14,107 tokens (20-60 us host gaps before each) and GEMM1 starting 320-520 us into the span. Here
the host copies the table once (``table.cpu()``: one copy of 21 KB at 14,107 tokens, no launch) and counts the
non-zero row counts itself. Same grid, same kernels, same output as q8td.
"""

import torch

from . import q8td as _td

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 4, "LAUNCH": "fast", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 1, "TMA": 1, "A_SORTED": 0, "PERSIST": 0}  # kernelopt:params

_ex = _td._ex
_rt = _ex._rt
_q8 = _ex._q8


def _tiles_counted(topk_idx: torch.Tensor, offset: int, block_m: int):
    """q8ex's long-call tile table; under ``LONG_GRID="exact"`` its tile count read as one copy of the table."""
    if PARAMS["LONG_GRID"] not in ("exact", "bound"):
        raise ValueError(f"moe_grouped_fp8_q8tc: LONG_GRID={PARAMS['LONG_GRID']!r} must be 'exact' or 'bound'")
    order, table, pos, n_tiles = _rt._tiles_triton(topk_idx, offset, block_m)
    if PARAMS["LONG_GRID"] == "exact":
        # one sync; at least one program (with no local pair, tile 0 has rows 0 and its programs return)
        n_tiles = max(int(torch.count_nonzero(table.cpu()[:, 2])), 1)
    return order, table, pos, n_tiles


# this package's own copies of q8td, q8ex, q8rt and q8 read this seed's PARAMS; q8's entry point takes its long calls'
# tile table (and so its GEMMs' grid) from the function above
for _module in (_td, _ex, _rt, _q8):
    _module.PARAMS = PARAMS
_q8._tiles = _tiles_counted


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _td.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)

