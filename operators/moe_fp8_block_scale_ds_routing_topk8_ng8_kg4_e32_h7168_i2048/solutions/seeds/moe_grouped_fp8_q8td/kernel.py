"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8ex`` seed (``q8ex.py``, over ``q8rt.py``, ``q8.py`` and
``base.py``) with the long calls' GEMMs reading their weight tiles (and GEMM2 its FP8 intermediate) through tensor
descriptors (TMA on Hopper) instead of per-element pointer tensors.

Why. The large band is 56 % of the contest mean and its two GEMMs run at ~500 FP8 TFLOP/s (2026-12-02 call BW, 14,107
tokens: GEMM1 1,672 us, GEMM2 879 us), a quarter of the H200's dense FP8 rate. q8's GEMM1 at its large point (BLOCK_M
64, BLOCK_N 128, 8 warps) compiles to 254-255 registers per thread (call AJ on the H200,
``benchmarks/results/moe_gemm1_sweep_h200.md``; the same here with ptxas for sm_90), one resident program per SM:
its loads are pointer tensors, a 64-bit address per element of every [BLOCK_K, BLOCK_N] weight tile and [BLOCK_M,
BLOCK_K] activation tile, kept live across the software pipeline. Here the weight tiles are loaded with
``tl.make_tensor_descriptor`` over W1 / W2 viewed as [experts x rows, K] (row-major, K contiguous: each tile is one
TMA box), so they take no address registers; GEMM2's intermediate rows are contiguous per tile (the permuted rows
``start ... start + rows``) and come through a descriptor too. ``A_SORTED=1``: GEMM1's activations are first copied
into the tiles' row order (``_permute_kernel``, one launch over the tiles, only their rows: ~100 MB at 14,107
tokens) and read through a descriptor as well; ``A_SORTED=0`` gathers them by token (a [BLOCK_M] row base plus the
K offsets). Compiled for sm_90 here (``benchmarks/sm90_resources.py``, Triton 3.9): GEMM2 118 registers instead of
255 at its large point, GEMM1 154 with ``A_SORTED=1`` (248 gathering). The arithmetic is q8's: per 128-wide K
block, FP8 dots scaled by the rows' and the weight block's scales into fp32 accumulators; GEMM1's epilogue quantises
``silu(gate) * up`` to e4m3 per (row, BLOCK_N group). Rows past a tile's count (the next tile's, or past the last
pair: zeros from the descriptor) are computed and not stored.

Calls of up to ``TILES_MAX_PAIRS`` routed pairs keep q8's GEMMs (BLOCK_M 16 there: no wgmma). In-kernel descriptors
need a global scratch allocator (``triton.set_allocator``; set on each call, a torch allocation of the descriptors'
bytes). ``TMA=0`` is q8ex. ``PERSIST`` > 0: both GEMMs as persistent programs, grid (P, N blocks), P =
floor(PERSIST x SMs / N blocks), each walking tiles p, p + P, ... up to the first without rows (the scheme of
``moe_grouped_fp8_q8pe``; with ``LONG_GRID="bound"`` no host sync).
"""

import torch
import triton
import triton.language as tl

from . import q8ex as _ex
from .base import _INTERPRET, TILES_MAX_PAIRS, TOP_K, _tile_rows
from .fastlaunch import fast
from .persistent_tiles import programs_per_block, rows_at

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 0, "TMA": 1, "A_SORTED": 1, "PERSIST": 0}  # kernelopt:params
#: Columns per program of the activations' permutation (``A_SORTED``): the scale block, which divides H
PERMUTE_BLOCK_H = 128

_rt = _ex._rt
_q8 = _ex._q8


@triton.jit
def _permute_kernel(a_ptr, tile_ptr, order_ptr, xs_ptr,
                    H: tl.constexpr, TOPK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr):
    """Program (tile, h): the tile's rows of the activations in sorted order, ``xs[start + m] = x[token(m)]``, over
    columns ``h * BLOCK_H ...`` (rows past the tile's count are left as they are)."""
    pid_h = tl.program_id(1)
    _expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows == 0:
        return
    token = tl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(tl.int64) // TOPK
    offs_h = pid_h * BLOCK_H + tl.arange(0, BLOCK_H)
    x = tl.load(a_ptr + token[:, None] * H + offs_h[None, :], mask=mask_m[:, None], other=0.0)
    tl.store(xs_ptr + (start + offs_m)[:, None] * H + offs_h[None, :], x, mask=mask_m[:, None])


@triton.jit
def _gemm1_swiglu_td_kernel(
    a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T, xs_ptr, n_rows,
    H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, QMAX: tl.constexpr, E: tl.constexpr, A_SORTED: tl.constexpr,
):
    """q8's GEMM1 program (tile, n) with the W1 tiles through a descriptor over W1 as [E * 2I, H]; with
    ``A_SORTED`` the activations too, from their sorted copy ``xs`` [n_rows, H] (``_permute_kernel``)."""
    pid_n = tl.program_id(1)
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows == 0:
        return
    pair = tl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(tl.int64)
    token = pair // TOPK
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    a_rows = a_ptr + token * H                                                  # [BM] row starts (fp8)
    if A_SORTED:
        a_desc = tl.make_tensor_descriptor(xs_ptr, shape=[n_rows, H], strides=[H, 1], block_shape=[BLOCK_M, BLOCK_K])
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[E * 2 * I, H], strides=[H, 1], block_shape=[BLOCK_N, BLOCK_K])
    row_up = (expert * (2 * I) + pid_n * BLOCK_N).to(tl.int32)
    row_gate = row_up + I
    KB: tl.constexpr = H // BLOCK_K
    # one W1 scale block per (K block, program): BLOCK_N divides the 128-wide scale block (q8's entry point checks it)
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (pid_n * BLOCK_N // BLOCK_K) * KB
    s_gate = s_up + (I // BLOCK_K) * KB

    acc_up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in tl.range(0, KB, num_stages=NUM_STAGES):
        k0 = kb * BLOCK_K
        if A_SORTED:  # rows past the tile's count: another tile's or unset, computed and not stored
            a = a_desc.load([start.to(tl.int32), k0])
        else:
            a = tl.load(a_rows[:, None] + (k0 + offs_k)[None, :], mask=mask_m[:, None], other=0.0)
        a_s = tl.load(a_scale_ptr + kb * T + token, mask=mask_m, other=0.0)
        wu = w_desc.load([row_up, k0])                                          # [BN, BK], K contiguous
        wg = w_desc.load([row_gate, k0])
        if UPCAST:
            a = a.to(tl.float32)
            wu = wu.to(tl.float32)
            wg = wg.to(tl.float32)
        su = tl.load(s_up + kb)
        sg = tl.load(s_gate + kb)
        acc_up += tl.dot(a, wu.T) * (a_s * su)[:, None]
        acc_gate += tl.dot(a, wg.T) * (a_s * sg)[:, None]

    h = acc_gate / (1.0 + tl.exp(-acc_gate)) * acc_up   # silu(X2) * X1, as the reference
    scale = tl.maximum(tl.max(tl.abs(h), axis=1), 1e-30) / QMAX                 # [BM]: one per (row, group)
    q = h / scale[:, None]
    rows_idx = start + offs_m
    tl.store(h_ptr + rows_idx[:, None] * I + offs_n[None, :], q.to(h_ptr.dtype.element_ty), mask=mask_m[:, None])
    tl.store(hs_ptr + rows_idx * (I // BLOCK_N) + pid_n, scale, mask=mask_m)


@triton.jit
def _gemm2_td_kernel(
    h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, n_pairs,
    H: tl.constexpr, I: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, E: tl.constexpr,
):
    """q8's GEMM2 program (tile, n) with the intermediate's rows and the W2 tiles through descriptors (h as
    [pairs, I], W2 as [E * H, I])."""
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
    s_ptr = w_scale_ptr + expert * (H // SCALE_K) * KB + (offs_n // SCALE_K) * KB       # [BN], W2 scales [E, 56, 16]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kq in tl.range(0, KQ, num_stages=NUM_STAGES):
        h = h_desc.load([row_h, kq * BLOCK_K])                                  # [BM, BK]
        h_s = tl.load(hs_ptrs + kq, mask=mask_m, other=0.0)
        w = w_desc.load([row_w, kq * BLOCK_K])                                  # [BN, BK], K contiguous
        if UPCAST:
            h = h.to(tl.float32)
            w = w.to(tl.float32)
        w_s = tl.load(s_ptr + (kq * BLOCK_K) // SCALE_K)
        acc += tl.dot(h, w.T) * (h_s[:, None] * w_s[None, :])
    tl.store(y_ptr + rows_idx[:, None] * H + offs_n[None, :], acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None])


@triton.jit
def _gemm1_td_persistent_kernel(
    a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T, xs_ptr, n_rows, n_tiles,
    H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, QMAX: tl.constexpr, E: tl.constexpr, A_SORTED: tl.constexpr,
):
    """``PERSIST``: grid (P, N blocks), the GEMM1 program above for tiles ``program_id(0) + j * P`` up to the first
    tile without rows (the tiles with rows are the table's first entries); the kernel reads its tile as
    ``program_id(0)``'s entry, so it is handed the table ``t - p`` entries on."""
    p = tl.program_id(0)
    t = p
    rows = rows_at(tile_ptr, t, n_tiles)
    while rows > 0:
        _gemm1_swiglu_td_kernel(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr + (t - p) * 3, order_ptr, h_ptr,
                                hs_ptr, T, xs_ptr, n_rows, H, I, TOPK, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, UPCAST,
                                QMAX, E, A_SORTED)
        t += tl.num_programs(0)
        rows = rows_at(tile_ptr, t, n_tiles)


@triton.jit
def _gemm2_td_persistent_kernel(
    h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, n_pairs, n_tiles,
    H: tl.constexpr, I: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, E: tl.constexpr,
):
    """GEMM2 as GEMM1 above: grid (P, N blocks), the GEMM2 program for tiles ``program_id(0) + j * P``."""
    p = tl.program_id(0)
    t = p
    rows = rows_at(tile_ptr, t, n_tiles)
    while rows > 0:
        _gemm2_td_kernel(h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr + (t - p) * 3, y_ptr, n_pairs,
                         H, I, BLOCK_M, BLOCK_N, BLOCK_K, SCALE_K, NUM_STAGES, UPCAST, E)
        t += tl.num_programs(0)
        rows = rows_at(tile_ptr, t, n_tiles)


def persistent_programs(n_tiles: int, n_blocks: int, device: torch.device) -> int:
    """``PERSIST`` > 0: programs per N block, floor(PERSIST x SMs / N blocks), at most the table's entries."""
    return programs_per_block(float(PARAMS["PERSIST"]), n_tiles, n_blocks, device)


def _scratch(size: int, alignment: int, stream) -> torch.Tensor:
    """Global scratch for the kernels' in-kernel tensor descriptors (``triton.set_allocator``)."""
    return torch.empty(size, dtype=torch.int8, device="cuda")


def _launch_table(kernels: dict, td1, td2, permute, persistent1, persistent2) -> dict:
    """q8rt's launch table with the long calls' GEMMs on the descriptor kernels above while ``TMA`` is on (GEMM1
    after the activations' permutation while ``A_SORTED`` is on; both persistent while ``PERSIST`` > 0)."""

    def long_call(pairs: int) -> bool:
        return bool(int(PARAMS["TMA"])) and pairs > TILES_MAX_PAIRS

    def gemm1(grid, *args, **kw):  # (a, a_scale, w, w_scale, table, order, h, h_scale, T)
        if not long_call(args[8] * TOP_K):
            return kernels["gemm1"][grid](*args, **kw)
        a, table, order, pairs = args[0], args[4], args[5], args[6].shape[0]
        xs = a
        if int(PARAMS["A_SORTED"]):
            hidden = a.shape[1]  # a multiple of the 128 scale block (q8's entry point checks it)
            xs = torch.empty((pairs, hidden), dtype=a.dtype, device=a.device)
            permute[(grid[0], hidden // PERMUTE_BLOCK_H)](a, table, order, xs, H=hidden, TOPK=TOP_K,
                                                          BLOCK_M=kw["BLOCK_M"], BLOCK_H=PERMUTE_BLOCK_H, num_warps=4)
        consts = {**kw, "E": args[2].shape[0], "A_SORTED": int(PARAMS["A_SORTED"])}
        if float(PARAMS["PERSIST"]) > 0:
            p = persistent_programs(grid[0], grid[1], a.device)
            return persistent1[(p, grid[1])](*args, xs, xs.shape[0], grid[0], **consts)
        return td1[grid](*args, xs, xs.shape[0], **consts)

    def gemm2(grid, *args, **kw):  # (h, h_scale, w2, w2_scale, table, y)
        if not long_call(args[5].shape[0]):
            return kernels["gemm2"][grid](*args, **kw)
        if float(PARAMS["PERSIST"]) > 0:
            p = persistent_programs(grid[0], grid[1], args[0].device)
            return persistent2[(p, grid[1])](*args, args[0].shape[0], grid[0], **kw, E=args[2].shape[0])
        return td2[grid](*args, args[0].shape[0], **kw, E=args[2].shape[0])

    return {**kernels, "gemm1": _rt._Grid(gemm1), "gemm2": _rt._Grid(gemm2)}


# this package's own copies of q8ex, q8rt and q8 read this seed's PARAMS; q8's entry point launches the GEMMs above
_ex.PARAMS = PARAMS
_rt.PARAMS = PARAMS
_q8.PARAMS = PARAMS
# q8ex's launch table (its bf16 GEMM2 rows) over this one over q8rt's
_JIT = (_gemm1_swiglu_td_kernel, _gemm2_td_kernel, _permute_kernel, _gemm1_td_persistent_kernel,
        _gemm2_td_persistent_kernel)
_q8._LAUNCHERS = {"jit": _ex._launch_table(_launch_table(_ex._RT_LAUNCHERS["jit"], *_JIT)),
                  "fast": _ex._launch_table(_launch_table(_ex._RT_LAUNCHERS["fast"], *map(fast, _JIT)))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    if not _INTERPRET and hidden_states.is_cuda:
        triton.set_allocator(_scratch)  # a context variable: set in the calling thread's context, every call
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
