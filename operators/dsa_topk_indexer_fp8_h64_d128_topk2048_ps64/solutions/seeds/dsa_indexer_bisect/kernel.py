"""DSA top-2048 indexer in one launch whose select finds the threshold by bisection on the score keys instead of
radix histograms: the ``dsa_indexer_one_acc`` seed (``acc.py``: FP8 scoring promoted to fp32 every ACC products,
each row selected by its last scoring program, over ``one.py`` and ``base.py``) with a cheaper threshold search.

Why. On the H200 (2026-12-02 call BQ, ``benchmarks/results/indexer_parts_h200_bq.md``, CUPTI) the row's select
alone is 14.6 of 28.7 us at 30 x 33 pages and 26.6 of 54.5 us at 30 x 82, one program per row. Most of it is the
four ``tl.histogram`` passes: Triton lowers a 256-bin histogram with one warp ballot per bit of the bin index (8)
and, per bin a thread owns (8), a chain of mask operations and a popcount: about 110 instructions per element per
pass, ~440 per element for the four passes, whatever the warp count (the select is instruction-bound: 8,192
lanes x 440 / 32 = 113 K warp instructions, ~15 us on one SM's four schedulers).

Here the threshold - the key of the k-th largest live score, k = min(2048, seq_len) - is built most significant
bits first, BITS bits per round: with ``thr`` the bits found so far, the round counts the live keys at or above
``thr | j << shift`` for j = 1 .. 2**BITS - 1 (CTA-wide sums; at BITS 2 the three counts ride in one int64 sum, 16
bits each, as a row has at most 8,192 lanes) and keeps the largest j whose count is still >= k. After 32 / BITS
rounds ``thr`` is the largest key T with #(key >= T) >= k, i.e. exactly the k-th largest key; ``need`` = k - #(key
> thr) keys equal to it are taken, lowest positions first, by the base seed's ``_emit_selected`` - so the ids are
the radix select's, element for element. About 3 instructions per element per round (a compare, a select, an
add): ~100 per element at BITS 1 against ~440, plus one CTA reduction per round (32 at BITS 1, 16 at BITS 2).
Dead lanes (positions >= seq_len, padding) get key 0, below every pivot (pivots are >= 1), so they never count.
An empty row (k = 0) ends with thr = 0xFFFFFFFF and need = 0: nothing is selected.

Everything else - the span scoring (``acc.py``'s ``_score_span_acc``), the per-row counter that finds a row's last
program, the pass-through of rows of at most 2,048 positions, the streaming fallback above 8,192 - is
``dsa_indexer_one_acc``'s, unchanged.
Entry point: ``run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)`` (DPS).
"""

import torch
import triton
import triton.language as tl

from . import acc as _acc
from .base import RADIX_MAX_POS, _emit_selected, _pad_row, _row_counts, _score_key
from .indexer_args import HEAD_DIM, NUM_HEADS, PAGE_SIZE, TOPK, indexer_args
from .one import select_warps

PARAMS = {"BN": 256, "BLOCKS": 1, "ACC": 32, "num_warps": 0, "num_stages": 2, "BITS": 1}  # kernelopt:params


@triton.jit
def _bisect_threshold(key, k, BITS: tl.constexpr):
    """The largest uint32 T with #(key >= T) >= k over ``key`` (dead lanes 0), BITS bits per round (1 or 2)."""
    thr = tl.zeros([], dtype=tl.uint32)
    for r in tl.static_range(32 // BITS):
        shift = 32 - BITS * (r + 1)
        if BITS == 1:
            pivot = thr | (tl.full([], 1, tl.uint32) << shift)
            step = (tl.sum((key >= pivot).to(tl.int32)) >= k).to(tl.uint32)
        else:  # three pivots; their counts (<= 8,192 each) packed 16 bits apart in one int64 sum
            p1 = thr | (tl.full([], 1, tl.uint32) << shift)
            p2 = thr | (tl.full([], 2, tl.uint32) << shift)
            p3 = thr | (tl.full([], 3, tl.uint32) << shift)
            packed = ((key >= p1).to(tl.int64) + ((key >= p2).to(tl.int64) << 16)
                      + ((key >= p3).to(tl.int64) << 32))
            s = tl.sum(packed)
            step = (((s & 0xFFFF) >= k).to(tl.uint32) + (((s >> 16) & 0xFFFF) >= k).to(tl.uint32)
                    + ((s >> 32) >= k).to(tl.uint32))
        thr = thr | (step << shift)
    return thr


@triton.jit
def _select_row_bisect(row_ptr, seq_len, b, bt_ptr, out_ptr, max_pages, max_pos,
                       NPAD: tl.constexpr, TOPK_C: tl.constexpr, PAGE: tl.constexpr, BITS: tl.constexpr):
    """Top-``min(TOPK_C, seq_len)`` of the fp32 score row at ``row_ptr`` as global token ids into ``out[b]``, the
    threshold by bisection (module docstring), the emission the radix select's."""
    pos = tl.arange(0, NPAD)
    n = tl.minimum(seq_len.to(tl.int32), max_pos)
    live = pos < n
    key = _score_key(tl.load(row_ptr + pos, mask=pos < max_pos, other=float("-inf"), cache_modifier=".cg"))
    key = tl.where(live, key, tl.zeros_like(key))
    k = tl.maximum(tl.minimum(n, TOPK_C), 0)
    thr = _bisect_threshold(key, k, BITS)
    need = k - tl.sum((key > thr).to(tl.int32))  # keys equal to thr still to take
    row_out = out_ptr + b * TOPK_C
    zero = tl.zeros([], dtype=tl.int32)
    n_sel, _ = _emit_selected(row_out, key, live, pos, thr, need, zero, zero, bt_ptr, b, max_pages, PAGE)
    _pad_row(row_out, n_sel, TOPK_C)


@triton.jit
def _indexer_bisect_kernel(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, count_ptr, out_ptr,
    max_pages, max_pos,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    ACC: tl.constexpr, NPAD: tl.constexpr, TOPK_C: tl.constexpr, BITS: tl.constexpr,
):
    """Grid (spans, rows): score the span; the row's last program to finish selects the row (``acc.py``'s kernel
    with the bisection select)."""
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    _acc._score_span_acc(q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, max_pages, max_pos, pid_n,
                         b, H, D, PAGE, BN, BLOCKS, ACC)
    tl.debug_barrier()
    done = tl.atomic_add(count_ptr + b, 1, sem="acq_rel")
    if done == tl.num_programs(0) - 1:
        _select_row_bisect(scores_ptr + b * max_pos, tl.load(seq_lens_ptr + b), b, bt_ptr, out_ptr, max_pages,
                           max_pos, NPAD, TOPK_C, PAGE, BITS)
        tl.atomic_xchg(count_ptr + b, 0)


@triton.jit
def _bisect_select_kernel(scores_ptr, seq_lens_ptr, bt_ptr, out_ptr, max_pages, max_pos,
                          NPAD: tl.constexpr, TOPK_C: tl.constexpr, PAGE: tl.constexpr, BITS: tl.constexpr):
    """``_select_row_bisect`` alone, one program per row (tests and ``benchmarks/indexer_parts.py``)."""
    b = tl.program_id(0).to(tl.int64)
    _select_row_bisect(scores_ptr + b * max_pos, tl.load(seq_lens_ptr + b), b, bt_ptr, out_ptr, max_pages, max_pos,
                       NPAD, TOPK_C, PAGE, BITS)


def _bits() -> int:
    bits = int(PARAMS["BITS"])
    if bits not in (1, 2):
        raise ValueError(f"dsa_indexer_bisect: BITS={bits} must be 1 or 2 (threshold bits per round)")
    return bits


def select_topk_bisect(scores: torch.Tensor, seq_lens: torch.Tensor, block_table: torch.Tensor,
                       topk_indices: torch.Tensor, num_warps: int = 0) -> None:
    """``_bisect_select_kernel`` over fp32 ``scores`` [B, max_pos] (contiguous), int32 ``seq_lens`` [B] and
    ``block_table`` [B, max_pages], writing int32 ``topk_indices`` [B, 2048]; ``num_warps`` 0: the select's."""
    batch, max_pos = scores.shape
    npad = max(triton.next_power_of_2(max_pos), 256)
    _bisect_select_kernel[(batch,)](scores, seq_lens, block_table, topk_indices, block_table.shape[1], max_pos,
                                    NPAD=npad, TOPK_C=TOPK, PAGE=PAGE_SIZE, BITS=_bits(),
                                    num_warps=num_warps or select_warps(npad))


def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> None:
    """Write the top-2048 global token ids per row ([B, 2048] int32, -1 padding) into ``topk_indices``."""
    bn, blocks, warps, acc = (int(PARAMS[k]) for k in ("BN", "BLOCKS", "num_warps", "ACC"))
    bits = _bits()
    if acc not in (32, 64, 128):
        raise ValueError(f"dsa_indexer_bisect: ACC={acc} must be 32, 64 or 128 (products per fp32 promotion)")
    if warps not in (0, 4, 8, 16):
        raise ValueError(f"dsa_indexer_bisect: num_warps={warps} must be 0 (the select's count), 4, 8 or 16")
    a = indexer_args("dsa_indexer_bisect", q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table,
                     topk_indices)
    batch, max_pages, max_pos = a["batch"], a["max_pages"], a["max_pos"]
    if batch == 0:
        return
    if max_pos <= TOPK or max_pos > RADIX_MAX_POS:  # dsa_indexer_one_acc's paths for these rows
        _acc.PARAMS.update({k: PARAMS[k] for k in ("BN", "BLOCKS", "ACC", "num_warps", "num_stages")})
        _acc.run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)
        return
    scores = torch.empty(batch, max_pos, dtype=torch.float32, device=a["q"].device)
    npad = max(triton.next_power_of_2(max_pos), 256)
    _indexer_bisect_kernel[(triton.cdiv(max_pos, bn * blocks), batch)](
        a["q"], a["k_bytes"], a["k_scales"], a["w"], a["lens"], a["table"], scores, _row_counts(batch, scores.device),
        topk_indices, max_pages, max_pos, H=NUM_HEADS, D=HEAD_DIM, PAGE=PAGE_SIZE, BN=bn, BLOCKS=blocks, ACC=acc,
        NPAD=npad, TOPK_C=TOPK, BITS=bits, num_warps=warps or select_warps(npad), num_stages=int(PARAMS["num_stages"]))
