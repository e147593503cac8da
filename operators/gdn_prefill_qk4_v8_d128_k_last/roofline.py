"""Roofline of ``gdn_prefill_qk4_v8_d128_k_last`` (packed variable-length Gated Delta Net prefill).

Bytes: per token q, k [4,128] bf16, v [8,128] bf16, a, b [8] bf16 read and output [8,128] bf16
written; per sequence the initial state [8,128,128] fp32 read and new_state written; A_log, dt_bias
[8] fp32 and cu_seqlens [S+1] int64 once.

FLOPs: the recurrent form's count, 7·K·V per (token, v-head) (see the decode roofline); a chunked
kernel runs this work as tensor-core matmuls, so the ceiling class is ``"bf16"``. Chunking adds
intra-chunk work, so this is a lower bound, not the chunked kernel's count.
"""

from __future__ import annotations

#: Axis the shape discovery bands along (REFERENCE §1.5 bands by total length; num_seqs is coupled).
BAND_AXIS = "total_seq_len"


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    n, s = axes["total_seq_len"], axes["num_seqs"]
    hq, hv, d = axes.get("num_q_heads", 4), axes.get("num_v_heads", 8), axes.get("head_size", 128)
    per_token = 2 * hq * d * 2 + hv * d * 2 + 2 * hv * 2 + hv * d * 2
    per_seq = 2 * hv * d * d * 4
    nbytes = n * per_token + s * per_seq + 2 * hv * 4 + axes.get("len_cu_seqlens", s + 1) * 8
    return {"bytes": nbytes, "flops": n * hv * 7 * d * d, "mma_dtype": "bf16"}
