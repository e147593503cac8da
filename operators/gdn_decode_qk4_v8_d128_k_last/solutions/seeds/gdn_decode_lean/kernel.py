"""Gated Delta Net single-token decode (k-last state) with the fewest operations between the state's load and store.

The grid of the ``gdn_decode_vtile`` seed (``base.py``: one program per batch, v-head and BV-row V tile, the
[BV, 128] fp32 state tile in registers), the same update in fp32, written so that the new state needs one
multiply and one fused multiply-add per element after a single reduction:

    u     = S @ k                          (the old state, before the decay)
    delta = beta * (v - g * u)             (= new_v - old_v of the reference)
    S_new = g * S + delta outer k          (stored as soon as it is formed)
    out   = scale * (S_new @ q)            (OUT_FROM_OLD=0)
          = scale * (g * (S @ q) + delta * (k . q))   (OUT_FROM_OLD=1: both reductions read the loaded S,
                                                       independent of the store)

At batch 32-64 the decode runs 1.07-1.11x the time of a bare copy of its state bytes under the official timing
(``benchmarks/results/decode_copy_ceiling_h200_df.md``) and 1.10x over flash-linear-attention needs ~1.015x:
this seed trims the arithmetic in between, and ``BV=4`` gives batch 32 two waves of one-warp programs instead of
one (so one wave's arithmetic can overlap the other's loads). Results equal the reference's to fp32 rounding.
``state`` may be ``None`` (zeros). Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, scale, output,
new_state)`` (DPS).
"""

import math

import triton
import triton.language as tl

from .base import HEAD, NUM_QK_HEADS, NUM_V_HEADS, _check

PARAMS = {"BV": 8, "num_warps": 1, "OUT_FROM_OLD": 1}  # kernelopt:params


@triton.jit
def _gdn_decode_lean_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, out_ptr, new_state_ptr,
    scale,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, HAS_STATE: tl.constexpr,
    OUT_FROM_OLD: tl.constexpr,
):
    pid_v = tl.program_id(0)
    pid_bh = tl.program_id(1)
    i_hv = pid_bh % HV
    offs_k = tl.arange(0, D)
    offs_v = pid_v * BV + tl.arange(0, BV)
    tile = pid_bh.to(tl.int64) * D * D + offs_v[:, None] * D + offs_k[None, :]
    if HAS_STATE:
        s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([BV, D], dtype=tl.float32)

    x = tl.load(a_ptr + pid_bh).to(tl.float32) + tl.load(dt_bias_ptr + i_hv).to(tl.float32)
    softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
    g = tl.exp(-tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32)) * softplus_x)
    beta = tl.sigmoid(tl.load(b_ptr + pid_bh).to(tl.float32))
    qk_base = ((pid_bh // HV) * HQK + i_hv // (HV // HQK)).to(tl.int64) * D
    q = tl.load(q_ptr + qk_base + offs_k).to(tl.float32)
    k = tl.load(k_ptr + qk_base + offs_k).to(tl.float32)
    v = tl.load(v_ptr + pid_bh.to(tl.int64) * D + offs_v).to(tl.float32)

    u = tl.sum(s * k[None, :], axis=1)
    if OUT_FROM_OLD:
        sq = tl.sum(s * q[None, :], axis=1)
    delta = beta * (v - g * u)
    s = g * s + delta[:, None] * k[None, :]
    tl.store(new_state_ptr + tile, s)
    if OUT_FROM_OLD:
        out = scale * (g * sq + delta * tl.sum(k * q, axis=0))
    else:
        out = scale * tl.sum(s * q[None, :], axis=1)
    tl.store(out_ptr + pid_bh.to(tl.int64) * D + offs_v, out.to(out_ptr.dtype.element_ty))


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state) -> None:
    """Write the decode output ([B,1,8,128] bf16) and the updated k-last state ([B,8,128,128] fp32)."""
    bv = int(PARAMS["BV"])
    if HEAD % bv != 0:
        raise ValueError(f"gdn_decode_lean: BV={bv} must divide {HEAD}")
    batch = q.shape[0]
    shapes = {"q": (batch, 1, NUM_QK_HEADS, HEAD), "k": (batch, 1, NUM_QK_HEADS, HEAD),
              "v": (batch, 1, NUM_V_HEADS, HEAD), "a": (batch, 1, NUM_V_HEADS), "b": (batch, 1, NUM_V_HEADS)}
    q, k, v, a, b = (_check(name, t, shapes[name]) for name, t in zip(shapes, (q, k, v, a, b)))
    _check("output", output, (batch, 1, NUM_V_HEADS, HEAD), out=True)
    _check("new_state", new_state, (batch, NUM_V_HEADS, HEAD, HEAD), out=True)
    if state is not None:
        state = _check("state", state, (batch, NUM_V_HEADS, HEAD, HEAD))
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD)
    if batch == 0:
        return
    _gdn_decode_lean_kernel[(HEAD // bv, batch * NUM_V_HEADS)](
        q, k, v, state if state is not None else new_state, A_log.contiguous(), a, dt_bias.contiguous(),
        b, output, new_state, scale,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, HAS_STATE=state is not None,
        OUT_FROM_OLD=int(PARAMS["OUT_FROM_OLD"]), num_warps=int(PARAMS["num_warps"]),
    )
