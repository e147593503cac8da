"""DSA top-2048 indexer in one launch with the FP8 tensor-core dot, its accumulation promoted to fp32 every ACC
products: the ``dsa_indexer_one`` seed (``one.py``; ``base.py`` is the ``dsa_indexer_scores`` seed's kernel) with
``tl.dot(..., max_num_imprecise_acc=ACC)`` in the scoring loop.

Why: on the H200 (2026-12-02 call BM, the 59 workloads of 33 pages or more, side by side with the retained
dispatch) ``dsa_indexer_one`` at BN 256 / BLOCKS 1 with DOT="fp8" read 0.83x the retained latency at 33-45 pages
and 0.70x at 82-91 pages, but failed one workload of 30 rows x 91 pages (matched ratio 0.999967: one selected
score 0.011 off the reference's, ``profiles_v/indexer_bm_dsa_indexer_one_BN_256_BLOCKS_1_DOT_fp8.jsonl``). On
sm_90 Triton lets an fp8 ``tl.dot`` accumulate the whole K = 128 in the tensor cores' reduced-precision
accumulator (``max_num_imprecise_acc`` defaults to 2**30 there); DeepGEMM and DeepSeek-V3 promote the partial
sums to fp32 registers every 128 products (every 4 WGMMAs of K 32) for the same reason. ``ACC`` = 32 adds each
WGMMA's K 32 partial sum into an fp32 accumulator; 128 is the unpromoted dot (the base seed's DOT="fp8").

Everything else (the span scoring, the per-row counter, the in-register radix select by each row's last program,
the pass-through of short rows) is ``dsa_indexer_one``'s, unchanged. Products of two e4m3 values are exact; only
the accumulation differs from DOT="tf32". The Triton CPU interpreter ignores ``max_num_imprecise_acc``: there the
dot is exact fp32 and the CPU tests check the algorithm; the precision is checked by the ``gpu`` points.
Entry point: ``run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)`` (DPS).
"""

import torch
import triton
import triton.language as tl

from .base import RADIX_MAX_POS, _indexer_fused_kernel, _pass_through_kernel, _row_counts, select_chunk
from .indexer_args import HEAD_DIM, NUM_HEADS, PAGE_SIZE, TOPK, indexer_args
from .one import _select_row_regs, select_warps

PARAMS = {"BN": 256, "BLOCKS": 1, "ACC": 32, "num_warps": 0, "num_stages": 2}  # kernelopt:params


@triton.jit
def _score_span_acc(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, max_pages, max_pos, pid_n, b,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    ACC: tl.constexpr,
):
    """The base seed's ``_score_span`` with DOT="fp8", the dot's accumulation promoted every ACC products."""
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
    for j in range(n_live, BLOCKS):
        pos = start0 + j * BN + offs_n
        tl.store(row + pos, tl.full([BN], float("-inf"), tl.float32), mask=pos < max_pos)


@triton.jit
def _indexer_one_acc_kernel(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, count_ptr, out_ptr,
    max_pages, max_pos,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    ACC: tl.constexpr, NPAD: tl.constexpr, TOPK_C: tl.constexpr,
):
    """Grid (spans, rows): score the span; the row's last program to finish selects the row (``one.py``)."""
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    _score_span_acc(q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, max_pages, max_pos, pid_n, b,
                    H, D, PAGE, BN, BLOCKS, ACC)
    tl.debug_barrier()
    done = tl.atomic_add(count_ptr + b, 1, sem="acq_rel")
    if done == tl.num_programs(0) - 1:
        _select_row_regs(scores_ptr + b * max_pos, tl.load(seq_lens_ptr + b), b, bt_ptr, out_ptr, max_pages,
                         max_pos, NPAD, TOPK_C, PAGE)
        tl.atomic_xchg(count_ptr + b, 0)


def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> None:
    """Write the top-2048 global token ids per row ([B, 2048] int32, -1 padding) into ``topk_indices``."""
    bn, blocks, warps, acc = (int(PARAMS[k]) for k in ("BN", "BLOCKS", "num_warps", "ACC"))
    if acc not in (32, 64, 128):
        raise ValueError(f"dsa_indexer_one_acc: ACC={acc} must be 32, 64 or 128 (products per fp32 promotion)")
    if warps not in (0, 4, 8, 16):
        raise ValueError(f"dsa_indexer_one_acc: num_warps={warps} must be 0 (the select's count), 4, 8 or 16")
    a = indexer_args("dsa_indexer_one_acc", q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table,
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
    shape = {"H": NUM_HEADS, "D": HEAD_DIM, "PAGE": PAGE_SIZE, "BN": bn, "BLOCKS": blocks, "TOPK_C": TOPK,
             "num_stages": int(PARAMS["num_stages"])}
    if max_pos > RADIX_MAX_POS:  # outside the contest's rows: the base seed's streaming select, exact tf32 dot
        _indexer_fused_kernel[grid](*args, FP8_DOT=False, CHUNK=select_chunk(max_pos, warps or 4),
                                    num_warps=warps or 4, **shape)
        return
    npad = max(triton.next_power_of_2(max_pos), 256)
    _indexer_one_acc_kernel[grid](*args, ACC=acc, NPAD=npad, num_warps=warps or select_warps(npad), **shape)
