"""DSA top-2048 indexer in one launch: the ``dsa_indexer_scores`` seed's FP8 scoring (``base.py`` is that seed's
``kernel.py``), and, in the same kernel, its exact radix top-2048 select run in registers by each row's last
scoring program to finish.

Why: at long context (33-91 pages, 59 of the 128 workloads) the retained seed (``dsa_indexer_fl``) is two launches,
the scoring kernel and the radix select, and the official span runs from the first kernel's start to the last
one's end. The H200 profile of 2026-12-01 call AB (``benchmarks/results/indexer_probe/profile_radix.json``) put
the device time at 21.1 us at 4 rows x 34 pages (scores 6.9, select 14.2), while the retained seed's contest
traces read 44.2 us on the 33-36-page rows. The rest is the host issuing the second launch after the scoring
kernel has finished (cheaper launches alone saved 8 us there, ``dsa_indexer_fl``) and, in part, the cold caches
of the official timing, which flushes the L2 before each call (the profiler's calls run warm). The base seed's
one-launch ``SELECT="fused"`` removed that gap but ran the select at the scoring kernel's 4 warps, streaming the
row in pieces (4 passes re-read from L2): its device time more than doubled (50.1 us, same call) and it lost.
Here the kernel runs at the select's warp count (NPAD // 512, clamped to 4-16: 8 warps at 33-45 pages, 16 at
82-91; ``num_warps`` = 0) and the last program of a row holds the whole row in registers, as
``_radix_select_kernel`` does: one launch, the select at the radix kernel's width.

How a row's last program is found (as the base seed's fused kernel): every program scores its span (BLOCKS tiles
of BN positions, ``_score_span``), passes a CTA barrier, and adds 1 to its row's int32 counter with an acq_rel
atomic, so its score stores are visible to whoever reads the count after it; the program that reads
``programs - 1`` loads the row's scores (``.cg``: other programs wrote them) and selects, then resets the counter
to 0 for the next call. No program waits for another, so no launch order is assumed.

Same results as the base seed's ``SELECT="radix"``, bit for bit (same scoring code, same exact select, ties to
the lowest positions; ``tests/test_indexer_one.py``). Rows longer than 8,192 positions (outside the contest's
workloads) take the base seed's streaming ``SELECT="fused"`` kernel; rows of at most 2,048 positions pass
through (one small launch), as in the base seed.
Entry point: ``run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)`` (DPS).
"""

import torch
import triton
import triton.language as tl

from .base import (RADIX_MAX_POS, _emit_selected, _indexer_fused_kernel, _pad_row, _pass_through_kernel, _row_counts,
                   _score_key, _score_span, _threshold_byte, select_chunk)
from .indexer_args import HEAD_DIM, NUM_HEADS, PAGE_SIZE, TOPK, indexer_args

PARAMS = {"BN": 64, "BLOCKS": 2, "DOT": "tf32", "num_warps": 0, "num_stages": 2}  # kernelopt:params


@triton.jit
def _select_row_regs(row_ptr, seq_len, b, bt_ptr, out_ptr, max_pages, max_pos,
                     NPAD: tl.constexpr, TOPK_C: tl.constexpr, PAGE: tl.constexpr):
    """Top-``min(TOPK_C, seq_len)`` of the fp32 score row at ``row_ptr`` as global token ids into ``out[b]``:
    the base seed's ``_radix_select_kernel`` (its docstring has the four steps) on a row other programs of the
    launch wrote, held whole in NPAD lanes (a power of two >= max_pos)."""
    pos = tl.arange(0, NPAD)
    n = tl.minimum(seq_len.to(tl.int32), max_pos)
    live = pos < n
    key = _score_key(tl.load(row_ptr + pos, mask=pos < max_pos, other=float("-inf"), cache_modifier=".cg"))
    need = tl.maximum(tl.minimum(n, TOPK_C), 0)  # k; then the number still to take from `cand`
    cand = live
    thr = tl.zeros([], dtype=tl.uint32)
    for i in tl.static_range(4):  # byte 3 (bits 31..24) down to byte 0
        digit = (key >> (24 - 8 * i)) & 0xFF
        d, need = _threshold_byte(tl.histogram(digit.to(tl.int32), 256, mask=cand), need)
        thr = thr | (d.to(tl.uint32) << (24 - 8 * i))
        cand = cand & (digit == d.to(tl.uint32))
    row_out = out_ptr + b * TOPK_C
    zero = tl.zeros([], dtype=tl.int32)
    n_sel, _ = _emit_selected(row_out, key, live, pos, thr, need, zero, zero, bt_ptr, b, max_pages, PAGE)
    _pad_row(row_out, n_sel, TOPK_C)


@triton.jit
def _indexer_one_kernel(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, count_ptr, out_ptr,
    max_pages, max_pos,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    FP8_DOT: tl.constexpr, NPAD: tl.constexpr, TOPK_C: tl.constexpr,
):
    """Grid (spans, rows): score the span; the row's last program to finish selects the row (module docstring)."""
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    _score_span(q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, max_pages, max_pos, pid_n, b,
                H, D, PAGE, BN, BLOCKS, FP8_DOT)
    tl.debug_barrier()
    done = tl.atomic_add(count_ptr + b, 1, sem="acq_rel")
    if done == tl.num_programs(0) - 1:
        _select_row_regs(scores_ptr + b * max_pos, tl.load(seq_lens_ptr + b), b, bt_ptr, out_ptr, max_pages,
                         max_pos, NPAD, TOPK_C, PAGE)
        tl.atomic_xchg(count_ptr + b, 0)


@triton.jit
def _regs_select_kernel(scores_ptr, seq_lens_ptr, bt_ptr, out_ptr, max_pages, max_pos,
                        NPAD: tl.constexpr, TOPK_C: tl.constexpr, PAGE: tl.constexpr):
    """``_select_row_regs`` alone, one program per row (tests check it on adversarial rows)."""
    b = tl.program_id(0).to(tl.int64)
    _select_row_regs(scores_ptr + b * max_pos, tl.load(seq_lens_ptr + b), b, bt_ptr, out_ptr, max_pages, max_pos,
                     NPAD, TOPK_C, PAGE)


def select_warps(npad: int) -> int:
    """The select's warp count for NPAD lanes: 16 lanes per thread, clamped to 4-16 (the base seed's radix
    kernel's rule)."""
    return max(4, min(16, npad // 512))


def select_topk_regs(scores: torch.Tensor, seq_lens: torch.Tensor, block_table: torch.Tensor,
                     topk_indices: torch.Tensor) -> None:
    """``_regs_select_kernel`` over fp32 ``scores`` [B, max_pos], arguments as the base seed's ``select_topk``."""
    batch, max_pos = scores.shape
    npad = max(triton.next_power_of_2(max_pos), 256)
    _regs_select_kernel[(batch,)](scores, seq_lens, block_table, topk_indices, block_table.shape[1], max_pos,
                                  NPAD=npad, TOPK_C=TOPK, PAGE=PAGE_SIZE, num_warps=select_warps(npad))


def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> None:
    """Write the top-2048 global token ids per row ([B, 2048] int32, -1 padding) into ``topk_indices``."""
    bn, blocks, warps = int(PARAMS["BN"]), int(PARAMS["BLOCKS"]), int(PARAMS["num_warps"])
    if PARAMS["DOT"] not in ("tf32", "fp8"):
        raise ValueError(f"dsa_indexer_one: DOT={PARAMS['DOT']!r} must be 'tf32' or 'fp8'")
    if warps not in (0, 2, 4, 8, 16):
        raise ValueError(f"dsa_indexer_one: num_warps={warps} must be 0 (the select's count), 2, 4, 8 or 16")
    a = indexer_args("dsa_indexer_one", q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table,
                     topk_indices)
    batch, max_pages, max_pos = a["batch"], a["max_pages"], a["max_pos"]
    if batch == 0:
        return
    if max_pos == 0:
        topk_indices.fill_(-1)
        return
    if max_pos <= TOPK:  # every row's tokens are its top-2048: pass them through, nothing to score
        _pass_through_kernel[(batch,)](a["lens"], a["table"], topk_indices, max_pages, max_pos, TOPK_C=TOPK,
                                       PAGE=PAGE_SIZE, num_warps=4)
        return

    scores = torch.empty(batch, max_pos, dtype=torch.float32, device=a["q"].device)
    grid = (triton.cdiv(max_pos, bn * blocks), batch)
    args = (a["q"], a["k_bytes"], a["k_scales"], a["w"], a["lens"], a["table"], scores,
            _row_counts(batch, scores.device), topk_indices, max_pages, max_pos)
    shape = {"H": NUM_HEADS, "D": HEAD_DIM, "PAGE": PAGE_SIZE, "BN": bn, "BLOCKS": blocks,
             "FP8_DOT": PARAMS["DOT"] == "fp8", "TOPK_C": TOPK, "num_stages": int(PARAMS["num_stages"])}
    if max_pos > RADIX_MAX_POS:  # too long to hold in registers: the base seed's streaming one-launch select
        _indexer_fused_kernel[grid](*args, CHUNK=select_chunk(max_pos, warps or 4), num_warps=warps or 4, **shape)
        return
    npad = max(triton.next_power_of_2(max_pos), 256)
    _indexer_one_kernel[grid](*args, NPAD=npad, num_warps=warps or select_warps(npad), **shape)
