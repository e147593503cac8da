"""Bounded-recurrence inputs for Gated Delta Net decode (see README.md).

As FlashInfer-Bench's own GDN reference tests do: ``k`` L2-normalised per head (so the delta update
S(I - beta k k^T) is a contraction), ``A_log`` and ``dt_bias`` ~ N(0, 0.1^2) (moderate gates) and the
incoming ``state`` small (randn * 0.1). ``q``, ``v``, ``a`` and ``b`` keep the default randn draws;
``scale`` is the workload scalar 0.0 (the reference then uses 1/sqrt(128)). All random per trial.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

GATE_SIGMA = 0.1
STATE_SIGMA = 0.1


def generate(definition: Any, workload: Any, axes: dict[str, int], device: Any,
             generator: torch.Generator) -> dict[str, torch.Tensor]:
    """Normalised keys, moderate gates and a small initial state (CPU tensors)."""
    def shape(name: str) -> tuple[int, ...]:
        return tuple(axes[a] for a in definition.inputs[name].shape)

    k = torch.randn(shape("k"), generator=generator)
    return {
        "k": F.normalize(k, p=2.0, dim=-1).to(torch.bfloat16),
        "A_log": torch.randn(shape("A_log"), generator=generator) * GATE_SIGMA,
        "dt_bias": torch.randn(shape("dt_bias"), generator=generator) * GATE_SIGMA,
        "state": torch.randn(shape("state"), generator=generator) * STATE_SIGMA,
    }
