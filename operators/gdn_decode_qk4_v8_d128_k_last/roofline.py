"""Roofline of ``gdn_decode_qk4_v8_d128_k_last`` (one decode step of Gated Delta Net).

Bytes per batch row: q, k [4,128] bf16, v [8,128] bf16, a, b [8] bf16, state [8,128,128] fp32 read;
output [8,128] bf16 and new_state [8,128,128] fp32 written; plus A_log, dt_bias [8] fp32 once
(the ``scale`` scalar is a kernel argument, not memory). The state dominates (1 MiB per row).

FLOPs per (row, v-head) with K = V = 128: decay g·S (K·V), u = k·S (2·K·V), rank-1 delta update
S += kᵀ·δ (2·K·V), o = q·S (2·K·V) = 7·K·V; the O(V) gate and delta terms are ignored.
Matrix-vector work on CUDA cores: ``mma_dtype`` None.
"""

from __future__ import annotations


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    b = axes["batch_size"]
    hq, hv, d = axes.get("num_q_heads", 4), axes.get("num_v_heads", 8), axes.get("head_size", 128)
    t = axes.get("seq_len", 1)
    per_row = (2 * t * hq * d * 2          # q, k (bf16)
               + t * hv * d * 2            # v
               + 2 * t * hv * 2            # a, b
               + hv * d * d * 4            # state
               + t * hv * d * 2            # output
               + hv * d * d * 4)           # new_state
    return {"bytes": b * per_row + 2 * hv * 4, "flops": b * t * hv * 7 * d * d, "mma_dtype": None}
