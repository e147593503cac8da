"""DSA top-2048 indexer: the ``dsa_indexer_scores`` seed's kernels (``base.py`` is that seed's ``kernel.py``),
launched through ``fastlaunch.py`` and with every host step of the call done before its first launch.

Why: at long context (33-91 pages, 59 of the 128 workloads) the call is two launches, the FP8 scoring kernel and
the radix top-2048 select, and the official span runs from the first kernel's start to the last one's end: the
host's time to issue the second launch is measured whenever the scoring kernel finishes first. The H200 host
takes 20 us to issue a 12-parameter ``kernel[grid](...)`` and 12 us through the compiled kernel's launcher
(``benchmarks/launch_overhead.py``, 2026-12-01 call AH); the two-launch rows read a ~38 us floor whatever the
batch (``skills/bottlenecks.md``). Here the score buffer, grids and the select's launch shape are computed before
the scoring launch, and both launches after a specialisation's first go through the compiled launchers.

Same kernels, same results as the base seed with ``SELECT="radix"`` (rows longer than 8,192 positions, outside
the contest's workloads, take its ``torch.topk`` + id-translation path).
"""

import torch
import triton

from .base import (HEAD_DIM, NUM_HEADS, PAGE_SIZE, RADIX_MAX_POS, ROW_BYTES, TOPK, _check, _indexer_scores_kernel,
                   _pass_through_kernel, _radix_select_kernel, _translate_kernel)
from .fastlaunch import fast

PARAMS = {"BN": 64, "BLOCKS": 2, "DOT": "tf32", "num_warps": 4, "num_stages": 2}  # kernelopt:params
_SCORES = fast(_indexer_scores_kernel)
_SELECT = fast(_radix_select_kernel)
_PASS = fast(_pass_through_kernel)


def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> None:
    """Write the top-2048 global token ids per row ([B, 2048] int32, -1 padding) into ``topk_indices``."""
    bn, blocks = int(PARAMS["BN"]), int(PARAMS["BLOCKS"])
    if PARAMS["DOT"] not in ("tf32", "fp8"):
        raise ValueError(f"dsa_indexer_fl: DOT={PARAMS['DOT']!r} must be 'tf32' or 'fp8'")
    batch = q_index_fp8.shape[0]
    num_pages = k_index_cache_fp8.shape[0]
    max_pages = block_table.shape[1] if block_table.dim() == 2 else 0
    q = _check("q_index_fp8", q_index_fp8, (batch, NUM_HEADS, HEAD_DIM)).view(torch.uint8)
    kc = _check("k_index_cache_fp8", k_index_cache_fp8, (num_pages, PAGE_SIZE, 1, ROW_BYTES))
    w = _check("weights", weights, (batch, NUM_HEADS)).to(torch.float32)
    lens = _check("seq_lens", seq_lens, (batch,)).to(torch.int32)
    table = _check("block_table", block_table, (batch, max_pages)).to(torch.int32)
    if tuple(topk_indices.shape) != (batch, TOPK) or topk_indices.dtype != torch.int32:
        raise ValueError(f"dsa_indexer_fl: topk_indices must be int32 {(batch, TOPK)}, got "
                         f"{topk_indices.dtype} {tuple(topk_indices.shape)}")
    if not topk_indices.is_contiguous():
        raise ValueError("dsa_indexer_fl: output tensor topk_indices must be contiguous")
    if batch == 0:
        return
    max_pos = max_pages * PAGE_SIZE
    if max_pos == 0:
        topk_indices.fill_(-1)
        return
    if max_pos <= TOPK:  # every row's tokens are its top-2048: pass them through, nothing to score
        _PASS[(batch,)](lens, table, topk_indices, max_pages, max_pos, TOPK_C=TOPK, PAGE=PAGE_SIZE, num_warps=4)
        return

    # every host step before the first launch: only the second launch's issue lies between the two kernels
    k_bytes = kc.view(torch.uint8)
    k_scales = kc.view(torch.float32)  # [N, 64, 1, 33]: same bytes, 4-byte words
    scores = torch.empty(batch, max_pos, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(max_pos, bn * blocks), batch)
    radix = max_pos <= RADIX_MAX_POS
    npad = max(triton.next_power_of_2(max_pos), 256)
    select_warps = max(4, min(16, npad // 512))
    select = _SELECT[(batch,)]
    _SCORES[grid](
        q, k_bytes, k_scales, w, lens, table, scores, max_pages, max_pos,
        H=NUM_HEADS, D=HEAD_DIM, PAGE=PAGE_SIZE, BN=bn, BLOCKS=blocks, FP8_DOT=PARAMS["DOT"] == "fp8",
        num_warps=int(PARAMS["num_warps"]), num_stages=int(PARAMS["num_stages"]),
    )
    if radix:
        select(scores, lens, table, topk_indices, max_pages, max_pos, NPAD=npad, TOPK_C=TOPK, PAGE=PAGE_SIZE,
               num_warps=select_warps)
        return
    vals, pos = torch.topk(scores, TOPK, dim=1, largest=True, sorted=False)
    _translate_kernel[(batch,)](pos.contiguous(), vals.contiguous(), table, topk_indices, TOPK, max_pages,
                                TOPK_C=TOPK, PAGE=PAGE_SIZE, num_warps=4)
