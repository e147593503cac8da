"""Structured inputs for the DSA top-k indexer (see README.md).

* ``block_table`` [B, P]: distinct page ids in [0, num_pages) — distinct across the whole batch, as in
  a paged cache without prefix sharing — from the workload UUID (seed-independent).
* ``seq_lens`` [B]: one row (chosen at random) tight, in ((P-1)*64, P*64], so the table width is
  needed; the others uniform in [1, P*64]. From the workload UUID.
* ``k_index_cache_fp8`` [N, 64, 1, 132] int8: the DeepGEMM packed page layout, built as FlashInfer's
  indexer evaluator does: bf16 randn keys, per-token scale = max(absmax, 1e-4) / 448, per page the
  64x128 fp8 bytes first and the 64 fp32 scales last. Random per trial.
* ``q_index_fp8`` and ``weights`` keep the FlashInfer default random draws.
"""

from __future__ import annotations

from typing import Any

import torch

from kernelopt.harness.device_random import normal

from kernelopt.harness.inputs import structure_generator

FP8_MAX = 448.0
MIN_ABSMAX = 1e-4


def structure(definition: Any, workload: Any, axes: dict[str, int]) -> dict[str, torch.Tensor]:
    """Seed-independent ``seq_lens`` and ``block_table`` of one workload."""
    b, p, n, page = axes["batch_size"], axes["max_num_pages"], axes["num_pages"], axes["page_size"]
    if b * p > n:
        raise ValueError(f"{definition.name} workload {workload.uuid}: batch_size*max_num_pages = {b * p} "
                         f"exceeds num_pages = {n}; cannot build distinct page tables")
    g = structure_generator(workload.uuid)
    block_table = torch.randperm(n, generator=g)[: b * p].view(b, p).to(torch.int32)
    seq_lens = torch.randint(1, p * page + 1, (b,), generator=g)
    tight = int(torch.randint(0, b, (1,), generator=g))
    seq_lens[tight] = torch.randint((p - 1) * page + 1, p * page + 1, (1,), generator=g)
    return {"seq_lens": seq_lens.to(torch.int32), "block_table": block_table}


def pack_k_cache(keys: torch.Tensor) -> torch.Tensor:
    """Pack keys [N, page, 1, D] (bf16) into the DeepGEMM layout [N, page, 1, D + 4] int8."""
    n, page, heads, d = keys.shape
    absmax = keys.float().abs().amax(dim=3, keepdim=True).clamp(min=MIN_ABSMAX)
    scale = absmax / FP8_MAX  # [N, page, 1, 1] float32
    fp8 = (keys.float() / scale).to(torch.float8_e4m3fn)
    packed = torch.empty(n, page * (d + 4), dtype=torch.uint8, device=keys.device)
    packed[:, : page * d] = fp8.reshape(n, page * d).view(torch.uint8)
    packed[:, page * d:] = scale.reshape(n, page).contiguous().view(torch.uint8).reshape(n, page * 4)
    return packed.view(n, page, heads, d + 4).view(torch.int8)


def unpack_k_cache(packed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Inverse view of :func:`pack_k_cache`: fp8 keys [N, page, D] and fp32 scales [N, page]."""
    n, page, _, dws = packed.shape
    d = dws - 4
    flat = packed.view(torch.uint8).reshape(n, page * dws)
    keys = flat[:, : page * d].contiguous().view(torch.float8_e4m3fn).view(n, page, d)
    scales = flat[:, page * d:].contiguous().view(torch.float32).view(n, page)
    return keys, scales


def generate(definition: Any, workload: Any, axes: dict[str, int], device: Any,
             generator: torch.Generator) -> dict[str, torch.Tensor]:
    """Page tables, sequence lengths and a packed FP8 key cache (the cache drawn and packed on ``device``)."""
    out = structure(definition, workload, axes)
    n, page, d = axes["num_pages"], axes["page_size"], axes["index_head_dim"]
    keys = normal((n, page, axes["kv_cache_num_heads"], d), generator, device, torch.bfloat16)
    out["k_index_cache_fp8"] = pack_k_cache(keys)
    return out


def describe(definition: Any, workload: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Sequence lengths and how many rows exceed top-k (the expensive regime)."""
    seq_lens = inputs["seq_lens"].cpu()
    topk = definition.const_axes["topk"]
    return {"seq_lens": seq_lens.tolist(), "rows_over_topk": int((seq_lens > topk).sum())}
