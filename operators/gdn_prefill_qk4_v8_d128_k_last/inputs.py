"""Structured inputs for Gated Delta Net prefill (see README.md).

* ``cu_seqlens`` [S+1] int64: a uniformly random composition of the N tokens into S positive
  sequence lengths (S-1 distinct cut points in 1..N-1), ``cu_seqlens[0] = 0``, ``[-1] = N``. Derived
  from the workload UUID, so identical across trials.
* As for decode: ``k`` L2-normalised per head, ``A_log`` / ``dt_bias`` ~ N(0, 0.1^2), ``state``
  randn * 0.1 (random per trial); ``q``, ``v``, ``a``, ``b`` default randn; ``scale`` 0.0 -> 1/sqrt(128).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from kernelopt.harness.device_random import normal
from kernelopt.harness.inputs import structure_generator

GATE_SIGMA = 0.1
STATE_SIGMA = 0.1


def structure(definition: Any, workload: Any, axes: dict[str, int]) -> dict[str, torch.Tensor]:
    """Seed-independent ``cu_seqlens`` of one workload."""
    n, s = axes["total_seq_len"], axes["num_seqs"]
    if axes["len_cu_seqlens"] != s + 1:
        raise ValueError(f"{definition.name} workload {workload.uuid}: len_cu_seqlens = "
                         f"{axes['len_cu_seqlens']} but num_seqs + 1 = {s + 1}")
    if not 1 <= s <= n:
        raise ValueError(f"{definition.name} workload {workload.uuid}: cannot split {n} tokens into {s} "
                         "non-empty sequences")
    g = structure_generator(workload.uuid)
    cuts = torch.sort(torch.randperm(n - 1, generator=g)[: s - 1] + 1).values
    zero, end = torch.zeros(1, dtype=torch.int64), torch.full((1,), n, dtype=torch.int64)
    return {"cu_seqlens": torch.cat([zero, cuts.to(torch.int64), end])}


def generate(definition: Any, workload: Any, axes: dict[str, int], device: Any,
             generator: torch.Generator) -> dict[str, torch.Tensor]:
    """Sequence split, normalised keys, moderate gates and a small initial state (drawn on ``device``)."""
    def shape(name: str) -> tuple[int, ...]:
        return tuple(axes[a] for a in definition.inputs[name].shape)

    out = structure(definition, workload, axes)
    k = normal(shape("k"), generator, device)
    out.update({
        "k": F.normalize(k, p=2.0, dim=-1).to(torch.bfloat16),
        "A_log": normal(shape("A_log"), generator, device) * GATE_SIGMA,
        "dt_bias": normal(shape("dt_bias"), generator, device) * GATE_SIGMA,
        "state": normal(shape("state"), generator, device) * STATE_SIGMA,
    })
    return out


def describe(definition: Any, workload: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Per-sequence lengths."""
    cu = inputs["cu_seqlens"].cpu()
    return {"seq_lens": (cu[1:] - cu[:-1]).tolist()}
