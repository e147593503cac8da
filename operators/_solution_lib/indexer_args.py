"""The DSA top-k indexer definition's entry-point arguments, checked once for a solution of several kernels.

A solution carries this file in its sources (seed folders link it as ``indexer_args.py``); it imports torch only.
``indexer_args(seed, ...)`` checks every shape of ``run(q_index_fp8, k_index_cache_fp8, weights, seq_lens,
block_table, topk_indices)`` (64 index heads of 128, pages of 64 tokens of 132 bytes: DeepGEMM's fp8 keys then one
fp32 scale per token; int32 [B, 2048] output) and returns the contiguous inputs as the kernels read them; a wrong
argument is a ``ValueError`` naming the seed and the argument. The frozen seeds before it (``dsa_indexer_scores``,
``dsa_indexer_fl``) carry their own copies of these checks: their content hashes key measured traces.
"""

import torch

NUM_HEADS, HEAD_DIM, PAGE_SIZE, TOPK = 64, 128, 64, 2048
ROW_BYTES = HEAD_DIM + 4  # fp8 key bytes + one fp32 scale per token


def _shaped(seed: str, name: str, t: torch.Tensor, shape: tuple) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"{seed}: {name} has shape {tuple(t.shape)}, expected {shape}")
    return t.contiguous()


def indexer_args(seed, q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> dict:
    """``{"q"}`` (the fp8 query bytes as uint8 [B, 64, 128]), ``"k_bytes"`` (the cache as uint8) and
    ``"k_scales"`` (the same bytes as fp32 words, [N, 64, 1, 33]), ``"w"`` (fp32 [B, 64]), ``"lens"`` (int32
    [B]), ``"table"`` (int32 [B, max_pages]), plus ``batch``, ``max_pages`` and ``max_pos`` (= max_pages * 64)."""
    batch, num_pages = q_index_fp8.shape[0], k_index_cache_fp8.shape[0]
    max_pages = block_table.shape[1] if block_table.dim() == 2 else 0
    kc = _shaped(seed, "k_index_cache_fp8", k_index_cache_fp8, (num_pages, PAGE_SIZE, 1, ROW_BYTES))
    out = {"q": _shaped(seed, "q_index_fp8", q_index_fp8, (batch, NUM_HEADS, HEAD_DIM)).view(torch.uint8),
           "k_bytes": kc.view(torch.uint8), "k_scales": kc.view(torch.float32),
           "w": _shaped(seed, "weights", weights, (batch, NUM_HEADS)).to(torch.float32),
           "lens": _shaped(seed, "seq_lens", seq_lens, (batch,)).to(torch.int32),
           "table": _shaped(seed, "block_table", block_table, (batch, max_pages)).to(torch.int32)}
    if tuple(topk_indices.shape) != (batch, TOPK) or topk_indices.dtype != torch.int32:
        raise ValueError(f"{seed}: topk_indices must be int32 {(batch, TOPK)}, got "
                         f"{topk_indices.dtype} {tuple(topk_indices.shape)}")
    if not topk_indices.is_contiguous():
        raise ValueError(f"{seed}: output tensor topk_indices must be contiguous")
    return {**out, "batch": batch, "max_pages": max_pages, "max_pos": max_pages * PAGE_SIZE}
