"""Roofline of the DeepSeek FP8 block-scale MoE layer (one EP rank: 32 of 256 experts, top-8).

Assumption (documented, not measured): each token's 8 experts are spread uniformly over the 256, so
a given local expert is missed by one token with probability 1 - 8/256 = 31/32. Then

* expected local experts touched: ``E_t = 32 · (1 - (31/32)^T)`` — only their weights are read;
* expected token-expert pairs on this rank: ``T · 8 · 32 / 256 = T``.

Bytes: routing_logits [T,256] fp32, routing_bias [256] bf16, hidden_states [T,7168] fp8,
hidden_states_scale [56,T] fp32, per touched expert gemm1 [4096,7168] fp8 + scales [32,56] fp32 and
gemm2 [7168,2048] fp8 + scales [56,16] fp32, output [T,7168] bf16 written. FLOPs per pair:
GEMM1 2·4096·7168 + GEMM2 2·7168·2048 (routing and SwiGLU are O(T·256 + T·2048), ignored).
The matmuls run at the fp8 tensor-core rate (``mma_dtype`` "fp8").
"""

from __future__ import annotations


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    t = axes["seq_len"]
    e, le = axes.get("num_experts", 256), axes.get("num_local_experts", 32)
    h, i, g1 = axes.get("hidden_size", 7168), axes.get("intermediate_size", 2048), axes.get("gemm1_out_size", 4096)
    hb, ib, gb = axes.get("num_hidden_blocks", 56), axes.get("num_intermediate_blocks", 16), \
        axes.get("num_gemm1_out_blocks", 32)
    topk = 8
    touched = le * (1.0 - (1.0 - topk / e) ** t)
    pairs = t * topk * le / e
    per_expert = g1 * h + gb * hb * 4 + h * i + hb * ib * 4
    nbytes = t * e * 4 + e * 2 + t * h + hb * t * 4 + touched * per_expert + t * h * 2
    flops = pairs * (2 * g1 * h + 2 * h * i)
    return {"bytes": round(nbytes), "flops": round(flops), "mma_dtype": "fp8"}
