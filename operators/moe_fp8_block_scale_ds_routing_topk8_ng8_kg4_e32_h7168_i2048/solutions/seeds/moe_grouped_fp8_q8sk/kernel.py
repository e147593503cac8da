"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8rg`` seed (``q8rg.py``, over ``q8rt.py``, ``q8.py`` and
``base.py``) with the short calls' GEMM1 split over the hidden dimension (split-K) inside the same fused launch.

Why. At 1-16 tokens (5 of the 19 workloads) only 1-13 of the 32 local experts have rows, and q8's GEMM1 runs
``I / BLOCK_N`` programs per routed expert (16 at the retained BLOCK_N 128): at one token 16 programs stream a 29 MB
weight slab on 16 of the 132 multiprocessors (H200, 2026-12-02 call CN: GEMM1 with the routing 52.7 / 94.3 / 146.9 us
at 1 / 7 / 16 tokens, 0.56 TB/s at one token; the call 86.8 us, 0.12 of the memory roofline). Here each of those
programs becomes ``SPLIT_K`` programs, each over its own contiguous share of the 56 K blocks of H (the shares differ by
at most one block). Every program writes its fp32 ``x W_up^T`` and ``x W_gate^T`` partial tiles to a scratch slot;
the last of a (tile, N block)'s programs to finish (an acq_rel count after a CTA barrier, the DSA attention seeds'
split-K pattern) resets the count for the next call, sums the ``SPLIT_K`` partials in a fixed order (deterministic)
with L2 loads (``.cg``: another multiprocessor wrote them) and runs q8's epilogue: ``silu(gate) * up``, the FP8
intermediate and its per-row group scale. The sums are the same products as q8's added in another order (fp32).

``SPLIT_K=1`` is q8rg. Only the fused short path splits (``FUSE_GEMM1`` on, the table in one program: up to
``TILES_MAX_PAIRS`` routed pairs); longer calls and ``FUSE_GEMM1=0`` run q8rg's (q8rt's) launches. The scratch
(``max(tiles, T) x I / BLOCK_N x SPLIT_K`` slots of two ``BLOCK_M x BLOCK_N`` fp32 tiles) and the counts (zeroed
once, left at zero by every call) are kept per device and grow when a call needs more.

Under the Triton interpreter (``TRITON_INTERPRET=1``) the fused launch runs as q8rg's two launches (programs run one
after another), with the same split and finishing step.
"""

import os

import torch
import triton
import triton.language as tl

from . import q8rg as _rg
from .base import _route_kernel, _tile_rows, _tile_table_kernel
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton", "FUSE_GEMM1": 1, "SPLIT_K": 4}  # kernelopt:params

_rt = _rg._rt
_q8 = _rg._q8
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"


@triton.jit
def _swiglu_store(acc_up, acc_gate, h_ptr, hs_ptr, start, offs_m, mask_m, pid_n,
                  I: tl.constexpr, BLOCK_N: tl.constexpr, QMAX: tl.constexpr):
    """q8's GEMM1 epilogue: ``silu(gate) * up`` as FP8 rows of ``h`` plus one fp32 scale per (row, N block)."""
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    h = acc_gate / (1.0 + tl.exp(-acc_gate)) * acc_up   # silu(X2) * X1, as the reference
    scale = tl.maximum(tl.max(tl.abs(h), axis=1), 1e-30) / QMAX
    q = h / scale[:, None]
    rows_idx = start + offs_m
    tl.store(h_ptr + rows_idx[:, None] * I + offs_n[None, :], q.to(h_ptr.dtype.element_ty), mask=mask_m[:, None])
    tl.store(hs_ptr + rows_idx * (I // BLOCK_N) + pid_n, scale, mask=mask_m)


@triton.jit
def _gemm1_split(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, part_ptr, cnt_ptr, T,
                 H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, QMAX: tl.constexpr,
                 SPLIT: tl.constexpr, CACHE: tl.constexpr):
    """Program (tile, N block * SPLIT + share): the share's K blocks of the tile's up and gate products; the last
    share to finish sums the partials and stores the FP8 intermediate (q8's ``_gemm1_swiglu_q8_kernel`` with SPLIT 1)."""
    NB: tl.constexpr = I // BLOCK_N
    KB: tl.constexpr = H // BLOCK_K
    pid_n = tl.program_id(1) // SPLIT
    share = tl.program_id(1) % SPLIT
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows == 0:
        return
    pair = tl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(tl.int64)
    token = pair // TOPK
    k_lo = share * KB // SPLIT
    k_hi = (share + 1) * KB // SPLIT
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    a_ptrs = a_ptr + token[:, None] * H + k_lo * BLOCK_K + offs_k[None, :]
    a_scale_ptrs = a_scale_ptr + token
    w_up = w_ptr + expert * (2 * I * H) + offs_n[None, :].to(tl.int64) * H + k_lo * BLOCK_K + offs_k[:, None]
    w_gate = w_up + I * H
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (offs_n // BLOCK_K) * KB
    s_gate = s_up + (I // BLOCK_K) * KB

    acc_up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in tl.range(k_lo, k_hi, num_stages=NUM_STAGES):
        a = tl.load(a_ptrs, mask=mask_m[:, None], other=0.0)
        a_s = tl.load(a_scale_ptrs + kb * T, mask=mask_m, other=0.0)
        wu = tl.load(w_up)
        wg = tl.load(w_gate)
        if UPCAST:
            a = a.to(tl.float32)
            wu = wu.to(tl.float32)
            wg = wg.to(tl.float32)
        su = tl.load(s_up + kb)
        sg = tl.load(s_gate + kb)
        acc_up += tl.dot(a, wu) * (a_s[:, None] * su[None, :])
        acc_gate += tl.dot(a, wg) * (a_s[:, None] * sg[None, :])
        a_ptrs += BLOCK_K
        w_up += BLOCK_K
        w_gate += BLOCK_K

    if SPLIT == 1:
        _swiglu_store(acc_up, acc_gate, h_ptr, hs_ptr, start, offs_m, mask_m, pid_n, I, BLOCK_N, QMAX)
    else:
        TILE: tl.constexpr = BLOCK_M * BLOCK_N
        slot = (tl.program_id(0) * NB + pid_n).to(tl.int64)
        cell = offs_m[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
        mine = part_ptr + (slot * SPLIT + share) * (2 * TILE)
        tl.store(mine + cell, acc_up)
        tl.store(mine + TILE + cell, acc_gate)
        tl.debug_barrier()  # every thread's partial stores precede the count
        count = cnt_ptr + slot
        if tl.atomic_add(count, 1, sem="acq_rel") == SPLIT - 1:  # the last share: reset the count for the next call
            tl.atomic_xchg(count, 0)
            first = part_ptr + slot * SPLIT * (2 * TILE)
            up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for j in tl.static_range(SPLIT):  # a fixed order: the same sums every call
                up += tl.load(first + j * (2 * TILE) + cell, cache_modifier=CACHE)
                gate += tl.load(first + j * (2 * TILE) + TILE + cell, cache_modifier=CACHE)
            _swiglu_store(up, gate, h_ptr, hs_ptr, start, offs_m, mask_m, pid_n, I, BLOCK_N, QMAX)


@triton.jit(do_not_specialize=["epoch"])
def _route_gemm1_split_kernel(logits_ptr, bias_ptr, idx_ptr, rw_ptr, scale, sync_ptr, epoch,
                              order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                              a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, h_ptr, hs_ptr, T, part_ptr, cnt_ptr,
                              E: tl.constexpr, NG: tl.constexpr, KG: tl.constexpr, TOPK: tl.constexpr,
                              BLOCK_M: tl.constexpr, NUM_LOCAL_C: tl.constexpr, P_PAD: tl.constexpr,
                              NT_PAD: tl.constexpr, H: tl.constexpr, I: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr,
                              QMAX: tl.constexpr, PHASES: tl.constexpr, SPLIT: tl.constexpr, CACHE: tl.constexpr):
    """q8rg's ``_route_gemm1_kernel`` with its GEMM1 plane split over K: plane 0 routes (token ``program_id(0)``; the
    last token's program builds the tile table and publishes the epoch), plane 1 runs :func:`_gemm1_split` once the
    epoch is published. ``PHASES`` 3 is both (one launch), 1 the routing alone, 2 GEMM1 alone (no wait)."""
    if PHASES == 2:
        if tl.program_id(0) < n_tiles:
            _gemm1_split(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, table_ptr, order_ptr, h_ptr, hs_ptr, part_ptr,
                         cnt_ptr, T, H, I, TOPK, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, UPCAST, QMAX, SPLIT, CACHE)
    elif tl.program_id(2) == 0:
        if (tl.program_id(0) < T) & (tl.program_id(1) == 0):
            _route_kernel(logits_ptr, bias_ptr, idx_ptr, rw_ptr, scale, E, NG, KG, TOPK)
            tl.debug_barrier()  # every thread's routing stores precede the count
            if tl.atomic_add(sync_ptr, 1, sem="acq_rel") == T - 1:
                _tile_table_kernel(idx_ptr, order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                                   BLOCK_M, NUM_LOCAL_C, P_PAD, NT_PAD)
                tl.debug_barrier()  # every thread's table stores precede the epoch
                tl.atomic_xchg(sync_ptr, 0)
                tl.atomic_xchg(sync_ptr + 1, epoch, sem="release")
    elif tl.program_id(0) < n_tiles:
        while tl.atomic_add(sync_ptr + 1, 0, sem="acquire") != epoch:
            pass
        _gemm1_split(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, table_ptr, order_ptr, h_ptr, hs_ptr, part_ptr,
                     cnt_ptr, T, H, I, TOPK, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, UPCAST, QMAX, SPLIT, CACHE)


#: Per device: (fp32 scratch of the partial tiles, int32 counts per (tile, N block)), grown as calls need.
_SCRATCH: dict = {}


def _scratch(device: torch.device, slots: int, tile: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The device's scratch with room for ``slots`` (tile, N block) pairs of ``SPLIT_K`` partial pairs of ``tile``
    fp32 elements, and their counts (zero between calls)."""
    split = int(PARAMS["SPLIT_K"])
    part, cnt = _SCRATCH.get(device, (None, None))
    if part is None or part.numel() < slots * split * 2 * tile:
        part = torch.empty(slots * split * 2 * tile, dtype=torch.float32, device=device)
    if cnt is None or cnt.numel() < slots:
        cnt = torch.zeros(slots, dtype=torch.int32, device=device)
    _SCRATCH[device] = (part, cnt)
    return part, cnt


class _Split:
    """q8rg's fused kernel as its launch table calls it (``fused[grid](*args, **kw, PHASES=...)``), launched as the
    split kernel: GEMM1's N axis times ``SPLIT_K``, the scratch and the split's constexprs added."""

    def __init__(self, kernel) -> None:
        self.kernel = kernel

    def __getitem__(self, grid):
        def launch(*args, PHASES, **kw):
            split = int(PARAMS["SPLIT_K"])
            if split < 1 or (kw["H"] // kw["BLOCK_K"]) < split:
                raise ValueError(f"moe_grouped_fp8_q8sk: SPLIT_K={split} must be between 1 and the "
                                 f"{kw['H'] // kw['BLOCK_K']} K blocks of H")
            n_blocks = kw["I"] // kw["BLOCK_N"]
            part, cnt = _scratch(args[0].device, grid[0] * n_blocks, kw["BLOCK_M"] * kw["BLOCK_N"])
            g = grid if PHASES == 1 else (grid[0], grid[1] * split, grid[2])
            return self.kernel[g](*args, part_ptr=part, cnt_ptr=cnt, **kw, PHASES=PHASES, SPLIT=split,
                                  CACHE="" if _INTERPRET else ".cg")
        return launch


# this package's own copies of q8rg / q8rt / q8: the q8rg launch tables over q8rt's, the fused kernel the split one
_rg.PARAMS = PARAMS
_rt.PARAMS = PARAMS
_q8.PARAMS = PARAMS
_q8._LAUNCHERS = {
    "jit": _rg._launch_table(_rt._launch_table(_q8._KERNELS, _rt._route_tiles_kernel),
                             _Split(_route_gemm1_split_kernel)),
    "fast": _rg._launch_table(_rt._launch_table({name: fast(fn) for name, fn in _q8._KERNELS.items()},
                                                fast(_rt._route_tiles_kernel)),
                              _Split(fast(_route_gemm1_split_kernel)))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
