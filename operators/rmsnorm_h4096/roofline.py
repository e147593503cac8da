"""Roofline of ``rmsnorm_h4096``: minimum bytes moved and floating-point operations.

Bytes: ``hidden_states`` [B,H] bf16 read once, ``weight`` [H] bf16 read once, ``output`` [B,H] bf16
written once. FLOPs: per element square + accumulate (2) and normalise x * rstd * w (2); the per-row
rsqrt/mean is O(B) and ignored. No matrix multiply (``mma_dtype`` None: CUDA-core work).
"""

from __future__ import annotations


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    b, h = axes["batch_size"], axes.get("hidden_size", 4096)
    return {"bytes": 2 * b * h + 2 * h + 2 * b * h, "flops": 4 * b * h, "mma_dtype": None}
