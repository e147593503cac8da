"""Structured ``sparse_indices`` for DSA sparse attention (see README.md).

Each query token attends into its own sequence, whose pages are distinct random pages of the cache
(disjoint between tokens). Index id = page * 64 + offset; -1 pads the tail. Rows cycle through three
patterns (the starting pattern is random per workload), all derived from the workload UUID and so
identical across trials:

* ``short``: a sequence of L = floor(2^U(0, 11)) tokens (1..2047, so 1 to 32 pages, the last page
  usually partial); all L tokens in random order (what the indexer returns), then -1.
* ``scattered``: a sequence of L in [2049, 8192] tokens (33..128 pages); 2048 distinct positions
  sampled from it in random order — full rows touching >= 32 pages.
* ``window``: a sequence of L in [2049, 8192]; the 2048 consecutive positions starting at a
  non-page-aligned offset, ascending — full rows that are not page-aligned (33 pages).

No row is empty (the reference's lse would be -inf there, which official checks treat as a trap).
q/caches keep the FlashInfer default random draws; ``sm_scale`` is the workload scalar 1/sqrt(192).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from kernelopt.harness.inputs import structure_generator

PATTERNS = ("short", "scattered", "window")
MAX_LONG_SEQ = 8192


def _row(pattern: str, pages: torch.Tensor, page: int, topk: int, g: torch.Generator) -> torch.Tensor:
    """Indices of one row given its sequence's page ids (enough pages for the pattern)."""
    if pattern == "short":
        length = min(topk - 1, int(2 ** (11 * torch.rand((), generator=g).item())))
        positions = torch.randperm(length, generator=g)
    else:
        length = int(torch.randint(topk + 1, MAX_LONG_SEQ + 1, (1,), generator=g))
        if pattern == "scattered":
            positions = torch.randperm(length, generator=g)[:topk]
        else:
            starts = [s for s in range(1, length - topk + 1) if s % page]
            start = starts[int(torch.randint(0, len(starts), (1,), generator=g))]
            positions = torch.arange(start, start + topk)
    tokens = pages[positions // page] * page + positions % page
    row = torch.full((topk,), -1, dtype=torch.int64)
    row[: tokens.numel()] = tokens
    return row


def structure(definition: Any, workload: Any, axes: dict[str, int]) -> dict[str, torch.Tensor]:
    """Seed-independent ``sparse_indices`` [T, topk] int32 of one workload."""
    t, n, page, topk = axes["num_tokens"], axes["num_pages"], axes["page_size"], axes["topk"]
    per_row = math.ceil(MAX_LONG_SEQ / page)
    if t * per_row > n:
        raise ValueError(f"{definition.name} workload {workload.uuid}: {t} tokens x {per_row} pages "
                         f"exceed num_pages = {n}")
    g = structure_generator(workload.uuid)
    pool = torch.randperm(n, generator=g)[: t * per_row].view(t, per_row)
    shift = int(torch.randint(0, len(PATTERNS), (1,), generator=g))
    rows = [_row(PATTERNS[(i + shift) % len(PATTERNS)], pool[i], page, topk, g) for i in range(t)]
    return {"sparse_indices": torch.stack(rows).to(torch.int32)}


def generate(definition: Any, workload: Any, axes: dict[str, int], device: Any,
             generator: torch.Generator) -> dict[str, torch.Tensor]:
    """Only the index structure is special; everything else is the default random draw."""
    return structure(definition, workload, axes)


def describe(definition: Any, workload: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Valid indices and distinct pages per row."""
    idx = inputs["sparse_indices"].cpu()
    page = definition.const_axes["page_size"]
    valid = [int((r >= 0).sum()) for r in idx]
    pages = [int(torch.unique(r[r >= 0] // page).numel()) for r in idx]
    return {"valid_per_row": valid, "pages_per_row": pages}
