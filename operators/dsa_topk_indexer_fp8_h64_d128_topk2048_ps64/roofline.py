"""Roofline of the DSA top-k indexer (FP8 keys in DeepGEMM-packed 64-token pages).

Assumption (the contest does not publish ``seq_lens``): rows follow this folder's ``inputs.py`` —
one row tight (all P = max_num_pages pages) and B - 1 rows with seq_len uniform in [1, 64·P], i.e.
(P + 1) / 2 pages expected. Expected pages touched: ``pages = P + (B - 1)·(P + 1)/2``; every touched
page is read whole (64 tokens × 132 bytes: 128 fp8 key bytes + one fp32 scale).

Bytes: touched pages, their block-table entries (int32), q_index_fp8 [B,64,128] fp8, weights [B,64]
fp32, seq_lens [B] int32 read; topk_indices [B,2048] int32 written. FLOPs: every token of a touched
page is scored, Σ_h relu(q_h·k)·w_h = 2·64·128 + 2·64 per token; the top-k selection does no
floating-point multiply-adds and is not counted. Scoring runs at the fp8 rate (``mma_dtype`` "fp8").

Short rows: when ``P·64 <= topk`` (P <= 32) no row holds more than 2048 tokens, so every row's answer is all of
its tokens whatever their scores: the minimum work is reading ``seq_lens`` and the block table and writing
``topk_indices`` — no page, query or weight byte and no FLOP (the pass-through path).
"""

from __future__ import annotations

#: Axis the shape discovery bands along (batch_size is coupled: recorded per band, not banded).
BAND_AXIS = "max_num_pages"
#: Known regime boundaries (band upper edges, inclusive): P <= 32 rows hold <= 2048 = topk tokens and
#: take the pass-through path (REFERENCE §1.2); 33-36 vs 37+ are the paper's measured regimes (Table 9).
REGIME_BREAKS = {"max_num_pages": [32, 36]}


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    b, p = axes["batch_size"], axes["max_num_pages"]
    heads, dim = axes.get("num_index_heads", 64), axes.get("index_head_dim", 128)
    page, row_bytes, topk = axes.get("page_size", 64), axes.get("head_dim_with_scale", 132), axes.get("topk", 2048)
    if p * page <= topk:  # pass-through: the answer does not depend on any score
        return {"bytes": b * p * 4 + b * 4 + b * topk * 4, "flops": 0, "mma_dtype": "fp8"}
    pages = p + (b - 1) * (p + 1) / 2
    nbytes = pages * (page * row_bytes + 4) + b * heads * dim + b * heads * 4 + b * 4 + b * topk * 4
    flops = pages * page * (2 * heads * dim + 2 * heads)
    return {"bytes": round(nbytes), "flops": round(flops), "mma_dtype": "fp8"}
