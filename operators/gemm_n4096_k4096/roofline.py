"""Roofline of ``gemm_n4096_k4096`` (C[M,N] = A[M,K] @ B[N,K]^T, all float16).

Bytes: A and B read once, C written once, 2 bytes each. FLOPs: 2·M·N·K. The tensor-core rate of
fp16 equals bf16 on Hopper, so ``mma_dtype`` is ``"bf16"`` (the ceiling class, not the storage type).
"""

from __future__ import annotations


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    m, n, k = axes["M"], axes.get("N", 4096), axes.get("K", 4096)
    return {"bytes": 2 * (m * k + n * k + m * n), "flops": 2 * m * n * k, "mma_dtype": "bf16"}
