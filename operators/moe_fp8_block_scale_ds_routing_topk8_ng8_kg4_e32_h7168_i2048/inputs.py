"""Structured inputs for the DeepSeek-V3 FP8 block-scale MoE (see README.md).

* ``routing_logits`` / ``routing_bias`` stand in for the contest's safetensors blobs (absent here):
  logits ~ N(0, 1.5^2) plus a mild per-expert popularity skew N(0, 0.2^2) shared by all rows; bias
  ~ N(0, 0.01^2) in bf16, shared by all rows (at T=14107 every expert is used, tokens per expert
  have a coefficient of variation ~0.4 and max/mean ~2.5; a bias of N(0, 0.1^2) would dominate the
  sigmoid scores and leave ~70 of 256 experts unused). Both are seed-independent (blobs are identical across
  trials): logits come from the workload UUID (redrawn until some token hits a local expert), skew
  and bias from a fixed label.
* The three block-scale tensors are positive powers of two drawn per block (random per trial), so
  the reference output is O(10) and a kernel that ignores or misplaces scales fails the check:
  hidden 2^U(-3,-1), gemm1 2^U(-4,-2), gemm2 2^U(-3,-1).
* ``hidden_states`` and both weight tensors keep the FlashInfer default (fp8 of clamp(randn, -2, 2)).
"""

from __future__ import annotations

from typing import Any

import torch

from kernelopt.harness.device_random import uniform
from kernelopt.harness.inputs import structure_generator

LOGIT_SIGMA = 1.5
SKEW_SIGMA = 0.2
BIAS_SIGMA = 0.01
SCALE_LOG2_RANGE = {
    "hidden_states_scale": (-3.0, -1.0),
    "gemm1_weights_scale": (-4.0, -2.0),
    "gemm2_weights_scale": (-3.0, -1.0),
}
TOP_K, N_GROUP, TOPK_GROUP = 8, 8, 4
MAX_REDRAWS = 64


def shared_routing(num_experts: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-expert logit skew (float32) and routing bias (bfloat16), identical for every row."""
    g = structure_generator("moe_ds_routing/shared")
    skew = torch.randn(num_experts, generator=g) * SKEW_SIGMA
    bias = (torch.randn(num_experts, generator=g) * BIAS_SIGMA).to(torch.bfloat16)
    return skew, bias


def structure(definition: Any, workload: Any, axes: dict[str, int]) -> dict[str, torch.Tensor]:
    """Seed-independent routing inputs of one workload.

    Logits are redrawn (deterministically, at most ``MAX_REDRAWS`` times) until at least one token
    routes to a local expert: a row whose reference output is all zeros cannot tell kernels apart
    (with this distribution about a third of single-token draws miss all 32 local experts).
    """
    t, e = axes["seq_len"], axes["num_experts"]
    local = axes["num_local_experts"]
    offset_spec = workload.inputs.get("local_expert_offset")
    offset = int(offset_spec.value) if getattr(offset_spec, "type", None) == "scalar" else None
    skew, bias = shared_routing(e)
    g = structure_generator(workload.uuid)
    for _ in range(MAX_REDRAWS):
        logits = (torch.randn(t, e, generator=g) * LOGIT_SIGMA + skew).float()
        if offset is None:
            break
        experts = route(logits, bias)
        if ((experts >= offset) & (experts < offset + local)).any():
            break
    return {"routing_logits": logits, "routing_bias": bias}


def generate(definition: Any, workload: Any, axes: dict[str, int], device: Any,
             generator: torch.Generator) -> dict[str, torch.Tensor]:
    """Routing stand-ins plus positive block scales (scales drawn on ``device``)."""
    out = structure(definition, workload, axes)
    for name, (lo, hi) in SCALE_LOG2_RANGE.items():
        shape = tuple(axes[a] for a in definition.inputs[name].shape)
        u = uniform(shape, generator, device)
        out[name] = torch.exp2(lo + (hi - lo) * u).float()
    return out


def route(routing_logits: torch.Tensor, routing_bias: torch.Tensor) -> torch.Tensor:
    """Global expert ids [T, 8] chosen by DeepSeek no-aux routing (same rule as the reference)."""
    s = torch.sigmoid(routing_logits.float())
    biased = s + routing_bias.float()
    t, e = biased.shape
    grouped = biased.view(t, N_GROUP, e // N_GROUP)
    group_scores = grouped.topk(2, dim=2).values.sum(dim=2)
    keep = group_scores.topk(TOPK_GROUP, dim=1).indices
    mask = torch.zeros_like(group_scores).scatter_(1, keep, 1.0)
    mask = mask.unsqueeze(2).expand_as(grouped).reshape(t, e)
    pruned = biased.masked_fill(mask == 0, torch.finfo(torch.float32).min)
    return pruned.topk(TOP_K, dim=1).indices


def describe(definition: Any, workload: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Tokens per local expert (the histogram that drives MoE latency)."""
    experts = route(inputs["routing_logits"].cpu(), inputs["routing_bias"].cpu())
    offset = int(inputs["local_expert_offset"])
    local = definition.const_axes["num_local_experts"]
    counts = torch.bincount(experts.flatten(), minlength=definition.const_axes["num_experts"])
    per_expert = counts[offset:offset + local].tolist()
    hit = ((experts >= offset) & (experts < offset + local)).any(dim=1)
    return {"tokens_per_local_expert": per_expert, "local_pairs": int(sum(per_expert)),
            "tokens_without_local_expert": int((~hit).sum())}
