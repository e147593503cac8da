"""DSA top-k indexer helpers: index validity and score recomputation on the packed FP8 key cache.

The key cache ``[num_pages, page_size, 1, head_dim + 4]`` (int8, read as uint8) uses DeepGEMM's
packed page layout: per page the first ``page_size * head_dim`` bytes are FP8 (e4m3fn) keys, the last
``page_size * 4`` bytes are one float32 scale per token. A global token id is
``page * page_size + offset``; ``-1`` is padding.
"""

from __future__ import annotations

import torch


def gather_keys(k_cache: torch.Tensor, token_ids: torch.Tensor, page_size: int) -> torch.Tensor:
    """Dequantised keys (float32) of global token ids; padding (-1) rows are zero.

    Args:
        k_cache: Packed cache ``[num_pages, page_size, 1, head_dim + 4]``.
        token_ids: Global token ids, any shape ``S``.
        page_size: Tokens per page.

    Returns:
        ``[*S, head_dim]`` float32 keys (fp8 value times the token's scale).
    """
    u8 = k_cache.view(torch.uint8)
    n_pages, ps, _, width = u8.shape
    if ps != page_size:
        raise ValueError(f"k cache page size {ps} != definition page_size {page_size}")
    head_dim = width - 4
    flat = u8.reshape(n_pages, ps * width)
    keys_u8 = flat[:, : ps * head_dim].reshape(n_pages, ps, head_dim)
    scale_u8 = flat[:, ps * head_dim:].reshape(n_pages, ps, 4)
    safe = token_ids.clamp(min=0).long()
    page, off = safe // ps, safe % ps
    keys = keys_u8[page, off].contiguous().view(torch.float8_e4m3fn).to(torch.float32)
    scales = scale_u8[page, off].contiguous().view(torch.float32)  # [*S, 1]
    return torch.where((token_ids >= 0).unsqueeze(-1), keys * scales, torch.zeros_like(keys))


def indexer_scores(q_fp8: torch.Tensor, k_cache: torch.Tensor, weights: torch.Tensor,
                   token_ids: torch.Tensor, page_size: int) -> torch.Tensor:
    """Weighted-ReLU indexer score ``sum_h relu(q_h . k) * w_h`` at given global token ids.

    Args:
        q_fp8: Queries ``[B, H, D]`` (fp8; computed in float32).
        k_cache: Packed key cache (see module doc).
        weights: Head weights ``[B, H]``.
        token_ids: ``[B, K]`` global token ids, -1 = padding.
        page_size: Tokens per page.

    Returns:
        ``[B, K]`` float32 scores, ``-inf`` at padding.
    """
    k = gather_keys(k_cache, token_ids, page_size)  # [B, K, D]
    per_head = torch.bmm(q_fp8.to(torch.float32), k.transpose(1, 2))  # [B, H, K]
    scores = (torch.relu(per_head) * weights.to(torch.float32).unsqueeze(2)).sum(dim=1)
    return scores.masked_fill(token_ids < 0, float("-inf"))


def validate_indices(indices: torch.Tensor, seq_lens: torch.Tensor, block_table: torch.Tensor,
                     page_size: int) -> list[str]:
    """Problems with a solution's top-k indices, one message per bad row (empty when valid).

    A row is valid when every entry is ``-1`` or a token reachable from that row (its page is among
    the first ``ceil(seq_len / page_size)`` entries of the row's block table and its position in the
    sequence is ``< seq_len``), no token repeats, and exactly ``min(topk, seq_len)`` entries are valid.
    """
    idx = indices.long()
    bsz, topk = idx.shape
    lens = seq_lens.long().reshape(-1).to(idx.device)
    table = block_table.long().to(idx.device)
    slots = torch.arange(table.shape[1], device=idx.device)
    used_pages = (lens + page_size - 1) // page_size  # [B]
    table = torch.where(slots.unsqueeze(0) < used_pages.unsqueeze(1), table, torch.full_like(table, -2))
    valid = idx >= 0
    safe = idx.clamp(min=0)
    match = (safe // page_size).unsqueeze(2) == table.unsqueeze(1)  # [B, K, P]
    found = match.any(dim=2)
    slot = match.long().argmax(dim=2)
    position = slot * page_size + safe % page_size
    reachable = found & (position < lens.unsqueeze(1))
    srt = idx.sort(dim=1).values
    dup = ((srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)).any(dim=1)
    problems = []
    for b in range(bsz):
        row = []
        n_bad_neg = int(((idx[b] < -1)).sum().item())
        n_unreach = int((valid[b] & ~reachable[b]).sum().item())
        if n_bad_neg:
            row.append(f"{n_bad_neg} negative ids other than -1")
        if n_unreach:
            row.append(f"{n_unreach} unreachable ids")
        if bool(dup[b].item()):
            row.append("duplicate ids")
        want = min(topk, int(lens[b].item()))
        got = int(valid[b].sum().item())
        if got != want:
            row.append(f"{got} valid ids, expected min(topk={topk}, seq_len={int(lens[b].item())}) = {want}")
        if row:
            problems.append(f"row {b}: " + ", ".join(row))
    return problems
