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

from kernelopt.harness.device_random import normal

GATE_SIGMA = 0.1
STATE_SIGMA = 0.1


def generate(definition: Any, workload: Any, axes: dict[str, int], device: Any,
             generator: torch.Generator) -> dict[str, torch.Tensor]:
    """Normalised keys, moderate gates and a small initial state (drawn on ``device``)."""
    def shape(name: str) -> tuple[int, ...]:
        return tuple(axes[a] for a in definition.inputs[name].shape)

    k = normal(shape("k"), generator, device)
    return {
        "k": F.normalize(k, p=2.0, dim=-1).to(torch.bfloat16),
        "A_log": normal(shape("A_log"), generator, device) * GATE_SIGMA,
        "dt_bias": normal(shape("dt_bias"), generator, device) * GATE_SIGMA,
        "state": normal(shape("state"), generator, device) * STATE_SIGMA,
    }
