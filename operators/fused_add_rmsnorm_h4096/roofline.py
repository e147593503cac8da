"""Roofline of ``fused_add_rmsnorm_h4096``: minimum bytes moved and floating-point operations.

Bytes: ``hidden_states`` and ``residual`` [B,H] bf16 read once each, ``weight`` [H] bf16 read once,
``output`` [B,H] bf16 written once (the definition has no in-place residual output). FLOPs: per
element add (1), square + accumulate (2), normalise x * rstd * w (2); per-row terms ignored. No matrix
multiply (``mma_dtype`` None).
"""

from __future__ import annotations


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    b, h = axes["batch_size"], axes.get("hidden_size", 4096)
    return {"bytes": 2 * (3 * b * h) + 2 * h, "flops": 5 * b * h, "mma_dtype": None}
