"""Roofline of DSA sparse attention (MLA-style, 16 heads, ckv 512 + kpe 64, top-2048 gathered tokens).

Assumption: every row holds ``topk`` valid indices (the nominal problem; rows with a -1 tail move
less) and rows touch disjoint tokens (as this folder's ``inputs.py`` builds them), so each gathered
KV row is read once: T·2048 rows of ckv (512 bf16) + kpe (64 bf16).

Bytes: q_nope [T,16,512] and q_pe [T,16,64] bf16, sparse_indices [T,2048] int32, the gathered KV rows
read; output [T,16,512] bf16 and lse [T,16] fp32 written. FLOPs per token: logits 2·16·2048·(512+64)
and P·V 2·16·2048·512 (softmax is O(16·2048), ignored); tensor-core work at the bf16 rate.
"""

from __future__ import annotations


def roofline(axes: dict[str, int]) -> dict[str, object]:
    """Minimum bytes and FLOPs of one call with these axes (var and const)."""
    t = axes["num_tokens"]
    h, ckv, kpe, topk = axes.get("num_qo_heads", 16), axes.get("head_dim_ckv", 512), \
        axes.get("head_dim_kpe", 64), axes.get("topk", 2048)
    nbytes = (t * h * ckv * 2 + t * h * kpe * 2 + t * topk * 4 + t * topk * (ckv + kpe) * 2
              + t * h * ckv * 2 + t * h * 4)
    flops = t * (2 * h * topk * (ckv + kpe) + 2 * h * topk * ckv)
    return {"bytes": nbytes, "flops": flops, "mma_dtype": "bf16"}
