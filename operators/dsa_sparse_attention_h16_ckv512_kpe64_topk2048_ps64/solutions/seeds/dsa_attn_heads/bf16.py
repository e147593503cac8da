"""DSA sparse MLA attention: the ``dsa_attn_splitk`` seed (``base.py`` is that seed's ``kernel.py``) with its two
tensor-core dots fed bf16 operands instead of fp32 (tf32).

The base seed upcasts every gathered key tile to fp32 before its dots: a [BK, 512] ckv tile is 4 bytes an element in
registers and in the shared-memory staging of each ``tl.dot`` (128 KB at BK 64), and it is staged twice per step
(as ``Kc^T`` for the scores and as ``Kc`` for ``P Kc``), on tf32 tensor cores. Its retained point (BK 64, 16 splits,
16 warps, 4 stages) takes 27.1 us at 1 token and 30.3 us at 8 on the H200 (contest traces): nearly flat while the
gathered bytes grow 8x (2.3 MiB a token), at 0.02-0.15 of the roofline. Here:

    s   = q_nope . Kc^T + q_pe . Kp^T        bf16 operands, fp32 accumulation (the products of bf16 values are exact
                                             in fp32, as in the base's tf32 dot: the same scores up to summation order)
    acc = acc * 2^(m_old - m) + P . Kc      P rounded to bf16 (relative 2^-9), Kc bf16, fp32 accumulation

so the key tiles stay bf16 end to end: half the register and shared-memory bytes, no conversion pass over the
tile, and the bf16 tensor-core rate. The one precision change is P in bf16, as flash attention kernels do (the
softmax normalisation ``l`` is summed from the fp32 P). The online softmax, split layout, merge
(``COMBINE="fused"``: the token's last split program merges, ``"launch"``: a second launch), argument checks and
entry point are the base seed's, unchanged: this package's copy of the base module gets the split kernel below.
The Triton CPU interpreter computes bf16 dots wrongly (errors of 1e10 on a 16 x 32 x 16 product, Triton 3.6), so
there (``TRITON_INTERPRET=1``) the dots take fp32 copies of the same operands, P rounded through bf16 first (the
interpreter truncates where the GPU rounds to nearest): the CPU tests check the algorithm and the bf16 rounding of
P, the GPU tests the bf16 tensor-core path.
Entry point: ``run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse)`` (DPS).
"""

import os

import triton
import triton.language as tl

from . import base as _base
from .base import _merge_splits

_EMULATE = tl.constexpr(os.environ.get("TRITON_INTERPRET") == "1")  # bf16 dots emulated in fp32 (docstring)

PARAMS = {"BK": 64, "NUM_SPLITS": 16, "num_warps": 8, "num_stages": 2, "COMBINE": "fused"}  # kernelopt:params


@triton.jit
def _dsa_split_bf16_kernel(
    q_nope_ptr, q_pe_ptr, ckv_ptr, kpe_ptr, idx_ptr,
    o_ptr, lse_ptr,  # final output/lse (NUM_SPLITS == 1) or fp32 split scratch [T, S, H, DC] / [T, S, H]
    qk_scale,  # sm_scale * log2(e)
    stride_ckv_p, stride_ckv_o, stride_kpe_p, stride_kpe_o,
    count_ptr, out_ptr, out_lse_ptr,  # FUSED: per-token counters, final output [T, H, DC] and lse [T, H]
    H: tl.constexpr, DC: tl.constexpr, DP: tl.constexpr, PAGE: tl.constexpr, TOPK: tl.constexpr,
    BK: tl.constexpr, NUM_SPLITS: tl.constexpr, FUSED: tl.constexpr,
):
    """The base seed's ``_dsa_split_kernel`` (same arguments, same outputs) with bf16 dot operands."""
    pid_t = tl.program_id(0)
    pid_s = tl.program_id(1)
    t64 = pid_t.to(tl.int64)
    offs_h = tl.arange(0, H)
    offs_c = tl.arange(0, DC)
    offs_p = tl.arange(0, DP)
    offs_k = tl.arange(0, BK)

    qn = tl.load(q_nope_ptr + t64 * H * DC + offs_h[:, None] * DC + offs_c[None, :])  # [H, DC] bf16
    qp = tl.load(q_pe_ptr + t64 * H * DP + offs_h[:, None] * DP + offs_p[None, :])  # [H, DP] bf16

    m_i = tl.full([H], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([H], dtype=tl.float32)
    acc = tl.zeros([H, DC], dtype=tl.float32)

    CHUNK: tl.constexpr = TOPK // NUM_SPLITS
    start = pid_s * CHUNK
    for k0 in tl.range(0, CHUNK, BK):
        slot = start + k0 + offs_k
        in_row = slot < TOPK
        idx = tl.load(idx_ptr + t64 * TOPK + slot, mask=in_row, other=-1)
        valid = in_row & (idx >= 0)
        tok = tl.where(valid, idx, 0).to(tl.int64)
        page = tok // PAGE
        off = tok % PAGE
        kc = tl.load(ckv_ptr + (page * stride_ckv_p + off * stride_ckv_o)[:, None] + offs_c[None, :],
                     mask=valid[:, None], other=0.0)  # [BK, DC] bf16
        kp = tl.load(kpe_ptr + (page * stride_kpe_p + off * stride_kpe_o)[:, None] + offs_p[None, :],
                     mask=valid[:, None], other=0.0)  # [BK, DP] bf16

        if _EMULATE:
            kc = kc.to(tl.float32)
            s = tl.dot(qn.to(tl.float32), tl.trans(kc)) + tl.dot(qp.to(tl.float32), tl.trans(kp.to(tl.float32)))
        else:
            s = tl.dot(qn, tl.trans(kc), out_dtype=tl.float32) + tl.dot(qp, tl.trans(kp), out_dtype=tl.float32)
        s = s * qk_scale  # [H, BK], log2 units
        s = tl.where(valid[None, :], s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # all masked so far: keep exp2 finite
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        p_op = p.to(tl.bfloat16)
        if _EMULATE:
            p_op = p_op.to(tl.float32)
        acc = acc * alpha[:, None] + tl.dot(p_op, kc, out_dtype=tl.float32)
        m_i = m_new

    has = l_i > 0.0
    out = acc / tl.where(has, l_i, 1.0)[:, None]
    lse = tl.where(has, m_i + tl.log2(tl.where(has, l_i, 1.0)), float("-inf"))

    row = (t64 * NUM_SPLITS + pid_s) * H + offs_h
    tl.store(o_ptr + row[:, None] * DC + offs_c[None, :], out.to(o_ptr.dtype.element_ty))
    tl.store(lse_ptr + row, lse)
    if FUSED:  # the token's last split to finish merges them all (COMBINE="fused")
        tl.debug_barrier()
        done = tl.atomic_add(count_ptr + pid_t, 1, sem="acq_rel")
        if done == NUM_SPLITS - 1:
            _merge_splits(o_ptr, lse_ptr, out_ptr, out_lse_ptr, t64, offs_h, H, DC, NUM_SPLITS, ".cg")
            tl.atomic_xchg(count_ptr + pid_t, 0)


# this package's own copy of the base module: the dsa_attn_splitk seed's package (and its traces' hash) is untouched
_base.PARAMS = PARAMS
_base._dsa_split_kernel = _dsa_split_bf16_kernel


def run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse) -> None:
    """Write ``output`` ([T,16,512] bf16) and the base-2 ``lse`` ([T,16] fp32), as the base seed."""
    _base.run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse)
