"""DeepSeek-V3 FP8 block-scale MoE: the retained ``moe_grouped_fp8_q8tc`` seed (``q8tc.py`` over ``q8td.py``,
``q8ex.py``, ``q8rt.py``, ``q8.py`` and ``base.py``) with the long calls' GEMM2 at its own warp count (``NUM_WARPS2``)
and each K step's W2 block scale applied as one per-row factor.

Why. Nsight Compute on the H200 (2026-12-02 call CE, ``benchmarks/results/ncu_sections_h200_moe_retained_14107_ce.md``):
at 14,107 tokens q8td's GEMM2 (871 us, a third of the call) runs two programs per SM with its L1/TEX (shared memory)
throughput at 80 % and issue slots 49 % busy, while it moves half GEMM1's FLOPs in 86 % of its time. Two costs per K
step are GEMM2's own:

* at 8 warps a 64-row program is two warp groups splitting the N columns (wgmma m64n64): each reads the whole
  [64, 128] intermediate tile from shared memory, so a K step reads 32 KB for 1 M MACs; at 4 warps (one warp group,
  m64n128) 24 KB. GEMM1 shares ``num_warps`` with GEMM2 in q8's entry point and needs 8 (call CC: both at 4 warps
  1.56x slower), hence ``NUM_WARPS2`` (0: ``num_warps``).
* q8td scales each K step's partial product by the outer product of the rows' intermediate scales and the columns'
  W2 block scales: two fp32 operations per accumulator element (ptxas: one ``mul`` and one ``fma`` each). With
  ``BLOCK_N2`` <= 128 a program's columns share one W2 block scale per K step, so the factor is per row and the update
  one ``fma`` per element (``BLOCK_N2`` 256: q8td's outer product).

``ROUTE_WARPS`` (0: q8's 4): the routing kernel's warps. It runs one program per token over the 256 experts and is
98 us at 14,107 tokens with L1/TEX at 87 % (call CE): at 1 warp its group and top-k reductions stay inside a warp.

Same arithmetic as q8td up to the order of the scale products (``(h_s * w_s) * dot`` instead of ``dot * (h_s * w_s)``
per column: the same fp32 product). Calls of up to ``TILES_MAX_PAIRS`` routed pairs are q8rt's; ``PERSIST`` > 0 runs
q8td's persistent kernels as they are.
"""

import triton
import triton.language as tl

from . import q8tc as _tc
from .base import _tile_rows
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 4, "LAUNCH": "fast", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 1, "TMA": 1, "A_SORTED": 0, "PERSIST": 0, "NUM_WARPS2": 4, "ROUTE_WARPS": 0}  # kernelopt:params

_td = _tc._td
_ex = _td._ex
_rt = _ex._rt
_q8 = _ex._q8


@triton.jit
def _gemm2_tw_kernel(
    h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, n_pairs,
    H: tl.constexpr, I: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, E: tl.constexpr,
):
    """q8td's GEMM2 program (tile, n); with BLOCK_N <= SCALE_K one W2 block scale per K step (a per-row factor)."""
    pid_n = tl.program_id(1)
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows == 0:
        return
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_idx = start + offs_m
    KQ: tl.constexpr = I // BLOCK_K
    KB: tl.constexpr = I // SCALE_K
    h_desc = tl.make_tensor_descriptor(h_ptr, shape=[n_pairs, I], strides=[I, 1], block_shape=[BLOCK_M, BLOCK_K])
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[E * H, I], strides=[I, 1], block_shape=[BLOCK_N, BLOCK_K])
    row_h = start.to(tl.int32)
    row_w = (expert * H + pid_n * BLOCK_N).to(tl.int32)
    hs_ptrs = hs_ptr + rows_idx * KQ                                            # [BM]: + kq
    s_base = w_scale_ptr + expert * (H // SCALE_K) * KB                          # W2 scales [E, 56, 16]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kq in tl.range(0, KQ, num_stages=NUM_STAGES):
        h = h_desc.load([row_h, kq * BLOCK_K])                                  # [BM, BK]
        h_s = tl.load(hs_ptrs + kq, mask=mask_m, other=0.0)
        w = w_desc.load([row_w, kq * BLOCK_K])                                  # [BN, BK], K contiguous
        if UPCAST:
            h = h.to(tl.float32)
            w = w.to(tl.float32)
        kb = (kq * BLOCK_K) // SCALE_K
        if BLOCK_N <= SCALE_K:  # the program's columns lie in one W2 scale block (q8's entry point checks BLOCK_N2)
            w_s = tl.load(s_base + ((pid_n * BLOCK_N) // SCALE_K) * KB + kb)
            acc += tl.dot(h, w.T) * (h_s * w_s)[:, None]
        else:
            w_s = tl.load(s_base + (offs_n // SCALE_K) * KB + kb)
            acc += tl.dot(h, w.T) * (h_s[:, None] * w_s[None, :])
    tl.store(y_ptr + rows_idx[:, None] * H + offs_n[None, :], acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None])


class _OwnWarps:
    """``launcher[grid](...)`` of a kernel at the warp count ``PARAMS[key]`` (0: the launch's ``num_warps``)."""

    def __init__(self, launcher, key: str) -> None:
        self.launcher, self.key = launcher, key

    def __getitem__(self, grid):
        def launch(*args, **kw):
            warps = int(PARAMS[self.key]) or kw["num_warps"]
            return self.launcher[grid](*args, **{**kw, "num_warps": warps})
        return launch


def _launchers(wrap) -> tuple:
    """q8td's descriptor kernels for its launch table (``wrap``: jit or fast), GEMM2 the one above at its own warps."""
    return (wrap(_td._gemm1_swiglu_td_kernel), _OwnWarps(wrap(_gemm2_tw_kernel), "NUM_WARPS2"),
            wrap(_td._permute_kernel), wrap(_td._gemm1_td_persistent_kernel), wrap(_td._gemm2_td_persistent_kernel))


# this package's own copies of q8tc, q8td, q8ex, q8rt and q8 read this seed's PARAMS
for _module in (_tc, _td, _ex, _rt, _q8):
    _module.PARAMS = PARAMS
# q8rt's launch tables with the routing at ROUTE_WARPS, under q8td's GEMMs (GEMM2 above) and q8ex's bf16 GEMM2 rows
_q8._LAUNCHERS = {
    name: _ex._launch_table(_td._launch_table(
        {**_ex._RT_LAUNCHERS[name], "route": _OwnWarps(_ex._RT_LAUNCHERS[name]["route"], "ROUTE_WARPS")},
        *_launchers(wrap)))
    for name, wrap in (("jit", lambda k: k), ("fast", fast))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    for key in ("NUM_WARPS2", "ROUTE_WARPS"):
        if int(PARAMS[key]) not in (0, 1, 2, 4, 8):
            raise ValueError(f"moe_grouped_fp8_q8tw: {key}={PARAMS[key]!r} must be 0 (the call's), 1, 2, 4 or 8")
    _tc.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
