"""Gated Delta Net single-token decode (k-last state): the lean update with the order of its loads and stores as
parameters.

The grid of ``gdn_decode_vtile`` (one program per batch, v-head and BV-row V tile, the [BV, 128] fp32 state tile
in registers) and the arithmetic of ``gdn_decode_lean`` (one reduction, then ``S_new = g*S + delta (x) k``)::

    u     = S @ k;   delta = beta * (v - g * u);   S_new = g * S + delta outer k
    out   = scale * (S_new @ q)                               (OUT_FROM_OLD=0)
          = scale * (g * (S @ q) + delta * (k . q))           (OUT_FROM_OLD=1)

On the H200 the two seeds split the small batches (batch 1-16, latency-bound): the vtile kernel at BV 8 / 8 warps
is fastest at batch 4-8, the lean kernel at BV 4 / 1 warp at batch 1 and 16, and the lean kernel on 8 warps loses
at 4-8 - they differ in arithmetic and in order: vtile loads the gates, q, k, v, computes the gates and then
loads the state, and stores the new state after the output's reduction; lean loads the state first and stores it
as soon as it is formed. Here the order is a parameter: ``STATE_FIRST`` (1: the state load issued before the small
loads; 0: after them and after the gates' arithmetic, as vtile) and ``STORE_EARLY`` (1: the new state stored before
the output's reduction; 0: after it, as vtile). Results equal the reference's to fp32 rounding. ``state`` may be
``None`` (zeros). Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state)`` (DPS).
"""

import triton
import triton.language as tl

from .args import HEAD, NUM_QK_HEADS, NUM_V_HEADS, decode_args

PARAMS = {"BV": 8, "num_warps": 8, "OUT_FROM_OLD": 0, "STATE_FIRST": 0, "STORE_EARLY": 0}  # kernelopt:params


@triton.jit
def _gdn_decode_order_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, out_ptr, new_state_ptr,
    scale,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, HAS_STATE: tl.constexpr,
    OUT_FROM_OLD: tl.constexpr, STATE_FIRST: tl.constexpr, STORE_EARLY: tl.constexpr,
):
    pid_v = tl.program_id(0)
    pid_bh = tl.program_id(1)
    i_hv = pid_bh % HV
    offs_k = tl.arange(0, D)
    offs_v = pid_v * BV + tl.arange(0, BV)
    tile = pid_bh.to(tl.int64) * D * D + offs_v[:, None] * D + offs_k[None, :]
    if HAS_STATE:
        if STATE_FIRST:
            s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([BV, D], dtype=tl.float32)

    x = tl.load(a_ptr + pid_bh).to(tl.float32) + tl.load(dt_bias_ptr + i_hv).to(tl.float32)
    a_log = tl.load(a_log_ptr + i_hv).to(tl.float32)
    b = tl.load(b_ptr + pid_bh).to(tl.float32)
    qk_base = ((pid_bh // HV) * HQK + i_hv // (HV // HQK)).to(tl.int64) * D
    q = tl.load(q_ptr + qk_base + offs_k).to(tl.float32)
    k = tl.load(k_ptr + qk_base + offs_k).to(tl.float32)
    v = tl.load(v_ptr + pid_bh.to(tl.int64) * D + offs_v).to(tl.float32)
    softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
    g = tl.exp(-tl.exp(a_log) * softplus_x)
    beta = tl.sigmoid(b)
    if HAS_STATE:
        if not STATE_FIRST:
            s = tl.load(state_ptr + tile).to(tl.float32)

    u = tl.sum(s * k[None, :], axis=1)
    if OUT_FROM_OLD:
        sq = tl.sum(s * q[None, :], axis=1)
    delta = beta * (v - g * u)
    s = g * s + delta[:, None] * k[None, :]
    if STORE_EARLY:
        tl.store(new_state_ptr + tile, s)
    if OUT_FROM_OLD:
        out = scale * (g * sq + delta * tl.sum(k * q, axis=0))
    else:
        out = scale * tl.sum(s * q[None, :], axis=1)
    if not STORE_EARLY:
        tl.store(new_state_ptr + tile, s)
    tl.store(out_ptr + pid_bh.to(tl.int64) * D + offs_v, out.to(out_ptr.dtype.element_ty))


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state) -> None:
    """Write the decode output ([B,1,8,128] bf16) and the updated k-last state ([B,8,128,128] fp32)."""
    bv = int(PARAMS["BV"])
    if HEAD % bv != 0:
        raise ValueError(f"gdn_decode_order: BV={bv} must divide {HEAD}")
    batch, q, k, v, state, a, b, scale = decode_args("gdn_decode_order", q, k, v, state, a, b, scale, output,
                                                     new_state)
    if batch == 0:
        return
    _gdn_decode_order_kernel[(HEAD // bv, batch * NUM_V_HEADS)](
        q, k, v, state if state is not None else new_state, A_log.contiguous(), a, dt_bias.contiguous(),
        b, output, new_state, scale,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, HAS_STATE=state is not None,
        OUT_FROM_OLD=int(PARAMS["OUT_FROM_OLD"]), STATE_FIRST=int(PARAMS["STATE_FIRST"]),
        STORE_EARLY=int(PARAMS["STORE_EARLY"]), num_warps=int(PARAMS["num_warps"]),
    )
