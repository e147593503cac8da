"""DSA top-2048 indexer in one launch whose select starts its threshold search from a coarse histogram of the row's
score keys, built by the scoring programs, and stops as soon as the threshold is isolated: the ``dsa_indexer_bisect``
seed's bisection (its docstring) with most of its 32 rounds removed.

Why. On the H200 (2026-12-03 call DA, ``benchmarks/results/indexer_parts_h200_bisect1_da.md``, CUPTI) the bisection
select alone is 11.8 / 19.6 us at 30 x 33 / 30 x 82 pages, after 12.1 / 20.4 us of scoring, and each of its 32
rounds is one CTA-wide count (compare, add, cross-warp reduction: latency-bound, ~450 cycles). Two exact shortcuts:

1. **Histogram start** (``HIST_BITS`` = HB > 0). Every scoring program adds each live position of its span to a
   per-row histogram of the top HB bits of the order-preserving key (``2**HB`` int32 bins in global memory,
   relaxed atomics, fire and forget). The row's last program (the one that selects: ``acc.py``'s counter scheme,
   whose acq_rel atomic also publishes these adds) loads the bins, takes the suffix sums ``ge[j]`` (live keys whose
   top bits are >= j) and starts with the top HB bits of the threshold already known - the largest j with ``ge[j]
   >= k`` - and with ``cnt = ge[j]`` keys at or above it; it then zeroes the bins for the next call (as the row
   counter is reset). HB rounds are skipped for one load and one scan of the bins.
2. **Early stop.** The bisection keeps ``thr`` (the bits found so far, ``#(key >= thr) = cnt >= k``) and stops once
   ``cnt == k``: the k keys at or above ``thr`` are then the row's top k, and the emission (every key above ``thr``,
   then ``need = k - #(key > thr)`` keys equal to it) takes exactly them. Distinct fp32
   scores are isolated long before the last bit (the gap between the k-th and (k+1)-th of a few thousand scores is
   usually 2**10 - 2**16 keys wide), so most rows stop after a handful of rounds; exact ties at the threshold run
   all rounds, as before.

The emission is the bisection's and the radix select's (ties at the k-th key to the lowest positions), and it takes
the same lanes, so the ids are equal element for element. ``HIST_BITS`` 0 is the early stop alone
(no atomics in the scoring). ``MAXNREG`` 128 caps the registers per thread (compiled for sm_90 here, the launch takes
205-209 registers at 8 warps - one program per SM - and 128 at 16 warps, the cap at 65,536 / 512): at 8 warps the
cap lets two programs share an SM, so one program's serial seq_len -> block table -> key loads overlap another's,
at the price of spills in the select. The span scoring is ``acc.py``'s ``_score_span_acc`` with the histogram adds; the pass-
through of rows of at most 2,048 positions and the streaming fallback above 8,192 are ``dsa_indexer_one_acc``'s.
Entry point: ``run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)`` (DPS).
"""

import torch
import triton
import triton.language as tl

from . import acc as _acc
from .base import RADIX_MAX_POS, _emit_selected, _pad_row, _row_counts, _score_key
from .indexer_args import HEAD_DIM, NUM_HEADS, PAGE_SIZE, TOPK, indexer_args
from .one import select_warps

PARAMS = {"BN": 256, "BLOCKS": 1, "ACC": 32, "num_warps": 0, "num_stages": 2, "HIST_BITS": 12, "MAXNREG": 0}  # kernelopt:params

#: the histogram widths the seed takes (0: no histogram, the early stop alone)
HIST_WIDTHS = (0, 8, 10, 12)


@triton.jit
def _add_to_hist(hist_row, score, valid, HB: tl.constexpr):
    """Count each valid lane's score in its bin (the top HB bits of its key) of the row's histogram."""
    bins = (_score_key(score) >> (32 - HB)).to(tl.int32)
    tl.atomic_add(hist_row + bins, tl.full(bins.shape, 1, tl.int32), mask=valid, sem="relaxed")


@triton.jit
def _score_span_hist(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, hist_ptr, max_pages, max_pos, pid_n, b,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    ACC: tl.constexpr, HB: tl.constexpr,
):
    """``acc.py``'s ``_score_span_acc`` (the same loads, dot and sums), each tile's live scores also counted in the
    row's histogram (``HB`` > 0)."""
    offs_h = tl.arange(0, H)
    offs_d = tl.arange(0, D)
    offs_n = tl.arange(0, BN)
    seq_len = tl.minimum(tl.load(seq_lens_ptr + b).to(tl.int64), max_pos)
    start0 = pid_n.to(tl.int64) * (BN * BLOCKS)
    n_live = tl.minimum(tl.maximum(tl.cdiv(seq_len - start0, BN), 0), BLOCKS)
    row = scores_ptr + b * max_pos
    q8 = tl.load(q_ptr + b * (H * D) + offs_h[:, None] * D + offs_d[None, :]).to(tl.float8e4nv, bitcast=True)
    w = tl.load(w_ptr + b * H + offs_h).to(tl.float32)
    for j in range(n_live):
        pos = start0 + j * BN + offs_n
        valid = pos < seq_len
        page = tl.load(bt_ptr + b * max_pages + pos // PAGE, mask=valid, other=0).to(tl.int64)
        off = pos % PAGE
        k8 = tl.load(k_ptr + (page * (PAGE * (D + 4)) + off * D)[None, :] + offs_d[:, None],
                     mask=valid[None, :], other=0).to(tl.float8e4nv, bitcast=True)  # [D, BN]
        scale = tl.load(ks_ptr + page * (PAGE * (D + 4) // 4) + (PAGE * D // 4) + off, mask=valid, other=0.0)
        s = tl.dot(q8, k8, out_dtype=tl.float32, max_num_imprecise_acc=ACC)  # [H, BN]
        score = tl.sum(tl.maximum(s * scale[None, :], 0.0) * w[:, None], axis=0)
        tl.store(row + pos, tl.where(valid, score, float("-inf")), mask=pos < max_pos)
        if HB > 0:
            _add_to_hist(hist_ptr + b * (1 << HB), score, valid, HB)
    for j in range(n_live, BLOCKS):
        pos = start0 + j * BN + offs_n
        tl.store(row + pos, tl.full([BN], float("-inf"), tl.float32), mask=pos < max_pos)


@triton.jit
def _hist_start(hist_row, k, HB: tl.constexpr):
    """(thr, cnt): the threshold's top HB bits from the row's histogram (the largest bin j with ``ge[j] >= k``,
    ``ge[j]`` = live keys whose top bits are >= j) and ``cnt = ge[j]``; the bins are zeroed for the next call."""
    bins = tl.arange(0, 1 << HB)
    h = tl.load(hist_row + bins, cache_modifier=".cg")
    ge = tl.sum(h) - tl.cumsum(h, 0) + h  # does not increase with j
    ok = ge >= k
    j = tl.sum(ok.to(tl.int32)) - 1
    cnt = tl.min(tl.where(ok, ge, 1 << 30))  # ge[j]
    tl.store(hist_row + bins, tl.zeros_like(h))
    return j.to(tl.uint32) << (32 - HB), cnt


@triton.jit
def _finish_threshold(key, k, thr, cnt, FIRST: tl.constexpr):
    """A threshold for the emission from ``thr`` (its top FIRST bits found, ``cnt = #(live key >= thr) >= k``):
    bisection one bit a round from bit ``31 - FIRST`` down, stopping once ``cnt == k``. Either all bits are found
    (``thr`` is the k-th largest key) or exactly k live keys are ``>= thr``; in both cases the emission's ``need = k
    - #(key > thr)`` takes exactly the radix select's lanes. Dead lanes hold key 0, below every pivot (>= 1)."""
    s = tl.full([], 31 - FIRST, tl.int32)
    while (s >= 0) & (cnt > k):
        pivot = thr | (tl.full([], 1, tl.uint32) << s.to(tl.uint32))
        c = tl.sum((key >= pivot).to(tl.int32))
        up = c >= k
        thr = tl.where(up, pivot, thr)
        cnt = tl.where(up, c, cnt)
        s -= 1
    return thr


@triton.jit
def _select_row_hist(row_ptr, hist_row, seq_len, b, bt_ptr, out_ptr, max_pages, max_pos,
                     NPAD: tl.constexpr, TOPK_C: tl.constexpr, PAGE: tl.constexpr, HB: tl.constexpr):
    """Top-``min(TOPK_C, seq_len)`` of the fp32 score row at ``row_ptr`` as global token ids into ``out[b]``: the
    threshold from the histogram and the early-stopping bisection (module docstring), the radix select's emission."""
    pos = tl.arange(0, NPAD)
    n = tl.maximum(tl.minimum(seq_len.to(tl.int32), max_pos), 0)
    live = pos < n
    key = _score_key(tl.load(row_ptr + pos, mask=pos < max_pos, other=float("-inf"), cache_modifier=".cg"))
    key = tl.where(live, key, tl.zeros_like(key))
    k = tl.minimum(n, TOPK_C)
    if HB > 0:
        thr, cnt = _hist_start(hist_row, k, HB)
    else:
        thr = tl.zeros([], dtype=tl.uint32)
        cnt = n
    thr = _finish_threshold(key, k, thr, cnt, HB)
    need = k - tl.sum((key > thr).to(tl.int32))  # keys equal to thr still to take
    row_out = out_ptr + b * TOPK_C
    zero = tl.zeros([], dtype=tl.int32)
    n_sel, _ = _emit_selected(row_out, key, live, pos, thr, need, zero, zero, bt_ptr, b, max_pages, PAGE)
    _pad_row(row_out, n_sel, TOPK_C)


@triton.jit
def _indexer_hist_kernel(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, hist_ptr, count_ptr, out_ptr,
    max_pages, max_pos,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    ACC: tl.constexpr, NPAD: tl.constexpr, TOPK_C: tl.constexpr, HB: tl.constexpr,
):
    """Grid (spans, rows): score the span (and count it in the row's histogram); the row's last program to finish
    selects the row (``acc.py``'s counter scheme)."""
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    _score_span_hist(q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, hist_ptr, max_pages, max_pos,
                     pid_n, b, H, D, PAGE, BN, BLOCKS, ACC, HB)
    tl.debug_barrier()
    done = tl.atomic_add(count_ptr + b, 1, sem="acq_rel")
    if done == tl.num_programs(0) - 1:
        _select_row_hist(scores_ptr + b * max_pos, hist_ptr + b * (1 << HB), tl.load(seq_lens_ptr + b), b, bt_ptr,
                         out_ptr, max_pages, max_pos, NPAD, TOPK_C, PAGE, HB)
        tl.atomic_xchg(count_ptr + b, 0)


@triton.jit
def _hist_build_kernel(scores_ptr, seq_lens_ptr, hist_ptr, max_pos, NPAD: tl.constexpr, HB: tl.constexpr):
    """The histogram the scoring programs build, from a score matrix (one program per row; ``select_topk_hist``)."""
    b = tl.program_id(0).to(tl.int64)
    pos = tl.arange(0, NPAD)
    live = pos < tl.minimum(tl.load(seq_lens_ptr + b), max_pos)
    _add_to_hist(hist_ptr + b * (1 << HB), tl.load(scores_ptr + b * max_pos + pos, mask=live, other=0.0), live, HB)


@triton.jit
def _hist_select_kernel(scores_ptr, seq_lens_ptr, hist_ptr, bt_ptr, out_ptr, max_pages, max_pos,
                        NPAD: tl.constexpr, TOPK_C: tl.constexpr, PAGE: tl.constexpr, HB: tl.constexpr):
    """``_select_row_hist`` alone, one program per row (tests and ``benchmarks/indexer_parts.py``)."""
    b = tl.program_id(0).to(tl.int64)
    _select_row_hist(scores_ptr + b * max_pos, hist_ptr + b * (1 << HB), tl.load(seq_lens_ptr + b), b, bt_ptr,
                     out_ptr, max_pages, max_pos, NPAD, TOPK_C, PAGE, HB)


_HISTS: dict = {}


def _row_hists(batch: int, device: torch.device) -> torch.Tensor:
    """The per-row histograms, kept zeroed between calls (each row's selecting program zeroes its bins), sized
    for the widest ``HIST_BITS``."""
    need = max(batch, 64) << max(HIST_WIDTHS)
    buf = _HISTS.get(device)
    if buf is None or buf.numel() < need:
        buf = _HISTS[device] = torch.zeros(need, dtype=torch.int32, device=device)
    return buf


def _hist_bits() -> int:
    hb = int(PARAMS["HIST_BITS"])
    if hb not in HIST_WIDTHS:
        raise ValueError(f"dsa_indexer_hist: HIST_BITS={hb} must be one of {HIST_WIDTHS} (0: no histogram)")
    return hb


def select_topk_hist(scores: torch.Tensor, seq_lens: torch.Tensor, block_table: torch.Tensor,
                     topk_indices: torch.Tensor, num_warps: int = 0) -> None:
    """The select alone over fp32 ``scores`` [B, max_pos] (contiguous), int32 ``seq_lens`` [B] and ``block_table``
    [B, max_pages], writing int32 ``topk_indices`` [B, 2048]: the histogram built by ``_hist_build_kernel`` (a
    launch of its own here; the scoring programs build it in ``run``), then ``_hist_select_kernel``;
    ``num_warps`` 0: the select's."""
    batch, max_pos = scores.shape
    npad = max(triton.next_power_of_2(max_pos), 256)
    hb, warps = _hist_bits(), num_warps or select_warps(npad)
    hists = _row_hists(batch, scores.device)
    if hb:
        _hist_build_kernel[(batch,)](scores, seq_lens, hists, max_pos, NPAD=npad, HB=hb, num_warps=warps)
    _hist_select_kernel[(batch,)](scores, seq_lens, hists, block_table, topk_indices, block_table.shape[1], max_pos,
                                  NPAD=npad, TOPK_C=TOPK, PAGE=PAGE_SIZE, HB=hb, num_warps=warps)


def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> None:
    """Write the top-2048 global token ids per row ([B, 2048] int32, -1 padding) into ``topk_indices``."""
    bn, blocks, warps, acc = (int(PARAMS[k]) for k in ("BN", "BLOCKS", "num_warps", "ACC"))
    hb, maxnreg = _hist_bits(), int(PARAMS["MAXNREG"])
    if maxnreg not in (0, 128):
        raise ValueError(f"dsa_indexer_hist: MAXNREG={maxnreg} must be 0 (the compiler's count) or 128")
    if acc not in (32, 64, 128):
        raise ValueError(f"dsa_indexer_hist: ACC={acc} must be 32, 64 or 128 (products per fp32 promotion)")
    if warps not in (0, 4, 8, 16):
        raise ValueError(f"dsa_indexer_hist: num_warps={warps} must be 0 (the select's count), 4, 8 or 16")
    a = indexer_args("dsa_indexer_hist", q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table,
                     topk_indices)
    batch, max_pages, max_pos = a["batch"], a["max_pages"], a["max_pos"]
    if batch == 0:
        return
    if max_pos <= TOPK or max_pos > RADIX_MAX_POS:  # dsa_indexer_one_acc's paths for these rows
        _acc.PARAMS.update({k: PARAMS[k] for k in ("BN", "BLOCKS", "ACC", "num_warps", "num_stages")})
        _acc.run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)
        return
    dev = a["q"].device
    scores = torch.empty(batch, max_pos, dtype=torch.float32, device=dev)
    npad = max(triton.next_power_of_2(max_pos), 256)
    _indexer_hist_kernel[(triton.cdiv(max_pos, bn * blocks), batch)](
        a["q"], a["k_bytes"], a["k_scales"], a["w"], a["lens"], a["table"], scores, _row_hists(batch, dev),
        _row_counts(batch, dev), topk_indices, max_pages, max_pos, H=NUM_HEADS, D=HEAD_DIM, PAGE=PAGE_SIZE, BN=bn,
        BLOCKS=blocks, ACC=acc, NPAD=npad, TOPK_C=TOPK, HB=hb, num_warps=warps or select_warps(npad),
        num_stages=int(PARAMS["num_stages"]), **({"maxnreg": maxnreg} if maxnreg else {}))
