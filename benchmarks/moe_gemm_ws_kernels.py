"""The MoE's long-call FP8 GEMMs with Triton's warp specialisation (``tl.range(..., warp_specialize=WS)``), for
``benchmarks/moe_gemm_ws.py`` (a measure, not a seed: on Triton 3.6 the split loses 1.6-3.3x and is wrong at 3+
stages, H100 call KC of 2026-12-06, ``benchmarks/results/moe_gemm_ws_nvidia_h100_80gb_hbm3_kc.md``).

Why. The retained GEMMs (``q8td._gemm1_swiglu_td_kernel``, ``q8tw._gemm2_tw_kernel``) run near half the H200's FP8
rate at 14,107 tokens; Nsight Compute (call IA) puts the retained GEMM1's stalls at a CTA barrier (31.9 %) with the
tensor pipe 39.9 % busy: every warp both issues the TMA loads and waits for the wgmma before the block-scale FMAs.
Triton 3.5+ splits a ``warp_specialize`` loop on Hopper into a producer warp (the TMA loads, per-buffer barriers) and
consumer warp groups (wgmma and the FMAs), with ``setmaxnreg`` moving registers to the consumers: the warp-specialised
producer call IA named as the next lever, written by the compiler instead of by hand (``q8gl``'s Gluon attempt).

Same arithmetic and outputs as the retained kernels: per 128-wide K block an FP8 dot scaled by the rows' and the
weight block's scales into fp32 accumulators; GEMM1's epilogue quantises ``silu(gate) * up`` to e4m3 per (row,
BLOCK_N group). GEMM1 reads the activations from their copy in the tiles' row order (``q8td._permute_kernel``,
``A_SORTED=1``): a tile's rows are then one TMA box, as the producer needs. ``WS=False`` is the same loop without the
split (the measure's control). Rows past a tile's count are computed and not stored, as in q8td. No early return for
an empty tile (Triton's split pass asserts on the branch it makes): launch them over the tiles with rows only (the
retained plan's exact grid); an empty tile's program would compute and store nothing.
"""

import triton
import triton.language as tl

from benchmarks.moe_gemm1_sweep import seed_module

#: the seeds' tile-table reader (expert, first row, rows, row offsets, row mask of this program's tile)
_tile_rows = seed_module("moe_grouped_fp8", "kernel")._tile_rows


@triton.jit
def _gemm1_ws_kernel(
    xs_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T, n_rows,
    H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, QMAX: tl.constexpr, E: tl.constexpr, WS: tl.constexpr,
):
    """GEMM1 program (tile, n): activations ``xs`` [n_rows, H] in the tiles' row order, W1 as [E * 2I, H], both
    through descriptors; the K loop warp-specialised under ``WS``."""
    pid_n = tl.program_id(1)
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    token = tl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(tl.int64) // TOPK
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    a_desc = tl.make_tensor_descriptor(xs_ptr, shape=[n_rows, H], strides=[H, 1], block_shape=[BLOCK_M, BLOCK_K])
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[E * 2 * I, H], strides=[H, 1], block_shape=[BLOCK_N, BLOCK_K])
    row_a = start.to(tl.int32)
    row_up = (expert * (2 * I) + pid_n * BLOCK_N).to(tl.int32)
    row_gate = row_up + I
    KB: tl.constexpr = H // BLOCK_K
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (pid_n * BLOCK_N // BLOCK_K) * KB
    s_gate = s_up + (I // BLOCK_K) * KB

    acc_up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in tl.range(0, KB, num_stages=NUM_STAGES, warp_specialize=WS):
        k0 = kb * BLOCK_K
        a = a_desc.load([row_a, k0])
        a_s = tl.load(a_scale_ptr + kb * T + token, mask=mask_m, other=0.0)
        wu = w_desc.load([row_up, k0])
        wg = w_desc.load([row_gate, k0])
        if UPCAST:
            a = a.to(tl.float32)
            wu = wu.to(tl.float32)
            wg = wg.to(tl.float32)
        su = tl.load(s_up + kb)
        sg = tl.load(s_gate + kb)
        acc_up += tl.dot(a, wu.T) * (a_s * su)[:, None]
        acc_gate += tl.dot(a, wg.T) * (a_s * sg)[:, None]

    h = acc_gate / (1.0 + tl.exp(-acc_gate)) * acc_up
    scale = tl.maximum(tl.max(tl.abs(h), axis=1), 1e-30) / QMAX
    q = h / scale[:, None]
    rows_idx = start + offs_m
    tl.store(h_ptr + rows_idx[:, None] * I + offs_n[None, :], q.to(h_ptr.dtype.element_ty), mask=mask_m[:, None])
    tl.store(hs_ptr + rows_idx * (I // BLOCK_N) + pid_n, scale, mask=mask_m)


@triton.jit
def _gemm2_ws_kernel(
    h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, n_pairs,
    H: tl.constexpr, I: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, E: tl.constexpr, WS: tl.constexpr,
):
    """GEMM2 program (tile, n) as q8tw's (BLOCK_N <= SCALE_K: one W2 block scale per K step, a per-row factor), the
    K loop warp-specialised under ``WS``."""
    pid_n = tl.program_id(1)
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_idx = start + offs_m
    KQ: tl.constexpr = I // BLOCK_K
    KB: tl.constexpr = I // SCALE_K
    h_desc = tl.make_tensor_descriptor(h_ptr, shape=[n_pairs, I], strides=[I, 1], block_shape=[BLOCK_M, BLOCK_K])
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[E * H, I], strides=[I, 1], block_shape=[BLOCK_N, BLOCK_K])
    row_h = start.to(tl.int32)
    row_w = (expert * H + pid_n * BLOCK_N).to(tl.int32)
    hs_ptrs = hs_ptr + rows_idx * KQ
    s_col = w_scale_ptr + expert * (H // SCALE_K) * KB + ((pid_n * BLOCK_N) // SCALE_K) * KB

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kq in tl.range(0, KQ, num_stages=NUM_STAGES, warp_specialize=WS):
        h = h_desc.load([row_h, kq * BLOCK_K])
        h_s = tl.load(hs_ptrs + kq, mask=mask_m, other=0.0)
        w = w_desc.load([row_w, kq * BLOCK_K])
        if UPCAST:
            h = h.to(tl.float32)
            w = w.to(tl.float32)
        w_s = tl.load(s_col + (kq * BLOCK_K) // SCALE_K)
        acc += tl.dot(h, w.T) * (h_s * w_s)[:, None]
    tl.store(y_ptr + rows_idx[:, None] * H + offs_n[None, :], acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None])
