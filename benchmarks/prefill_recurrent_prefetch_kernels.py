"""The token-recurrent GDN prefill kernel (seed ``gdn_prefill_recurrent``) with its inputs prefetched ``DEPTH`` tokens
ahead instead of one, for ``benchmarks/prefill_recurrent_prefetch.py``.

The seed loads token ``t + 1``'s q / k / v / a / b at the top of token ``t``'s update. On the H200 it runs about
0.5 us a token on short sequences (2026-12-04 traces: 6 tokens 4.9 us, 134 tokens 70 us): roughly one global-memory
round trip, so the one-token-ahead load may still be on the serial path. Here ``DEPTH`` (1-3) sets of a token's
inputs are carried through the loop: token ``t + DEPTH`` is loaded while token ``t`` is computed. ``DEPTH = 1`` is the
seed's loop. The arithmetic is the seed's, operation for operation (the outputs must be bit-identical); the token loads are the
seed's own ``_load_token``.
"""

import sys
from pathlib import Path

import triton
import triton.language as tl

SEEDS = Path(__file__).resolve().parents[1] / "operators" / "gdn_prefill_qk4_v8_d128_k_last" / "solutions" / "seeds"
if str(SEEDS) not in sys.path:
    sys.path.insert(0, str(SEEDS))
from gdn_prefill_recurrent.kernel import _load_token  # the seed's token loads, shared


@triton.jit
def _step(s, q, k, v, a, b, neg_a, dt_bias, scale):
    """One token's delta-rule update of the [BV, D] state tile: (new state, output row)."""
    x = a + dt_bias
    softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
    g = tl.exp(neg_a * softplus_x)
    beta = tl.sigmoid(b)
    sk = tl.sum(s * k[None, :], axis=1)
    sq = tl.sum(s * q[None, :], axis=1)
    delta = beta * (v - g * sk)
    out = scale * (g * sq + delta * tl.sum(k * q, axis=0))
    s = g * s + delta[:, None] * k[None, :]
    return s, out


@triton.jit
def recurrent_prefetch_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, cu_ptr, out_ptr, new_state_ptr,
    scale,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, HAS_STATE: tl.constexpr,
    DEPTH: tl.constexpr,
):
    pid_sh = tl.program_id(0)
    pid_v = tl.program_id(1)
    i_s = pid_sh // HV
    i_hv = pid_sh % HV
    i_hqk = i_hv // (HV // HQK)
    bos = tl.load(cu_ptr + i_s).to(tl.int64)
    eos = tl.load(cu_ptr + i_s + 1).to(tl.int64)
    offs_k = tl.arange(0, D)
    offs_v = pid_v * BV + tl.arange(0, BV)
    neg_a = -tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32))
    dt_bias = tl.load(dt_bias_ptr + i_hv).to(tl.float32)
    tile = pid_sh.to(tl.int64) * D * D + offs_v[:, None] * D + offs_k[None, :]
    if HAS_STATE:
        s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([BV, D], dtype=tl.float32)
    o_row = out_ptr + i_hv * D + offs_v

    q0, k0, v0, a0, b0 = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, bos, bos < eos, i_hqk, i_hv,
                                     offs_k, offs_v, HQK, HV, D)
    if DEPTH == 1:
        for t in range(bos, eos):
            q1, k1, v1, a1, b1 = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, t + 1, t + 1 < eos, i_hqk, i_hv,
                                             offs_k, offs_v, HQK, HV, D)
            s, out = _step(s, q0, k0, v0, a0, b0, neg_a, dt_bias, scale)
            tl.store(o_row + t * HV * D, out.to(out_ptr.dtype.element_ty))
            q0, k0, v0, a0, b0 = q1, k1, v1, a1, b1
    elif DEPTH == 2:
        q1, k1, v1, a1, b1 = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, bos + 1, bos + 1 < eos, i_hqk, i_hv,
                                         offs_k, offs_v, HQK, HV, D)
        for t in range(bos, eos):
            q2, k2, v2, a2, b2 = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, t + 2, t + 2 < eos, i_hqk, i_hv,
                                             offs_k, offs_v, HQK, HV, D)
            s, out = _step(s, q0, k0, v0, a0, b0, neg_a, dt_bias, scale)
            tl.store(o_row + t * HV * D, out.to(out_ptr.dtype.element_ty))
            q0, k0, v0, a0, b0 = q1, k1, v1, a1, b1
            q1, k1, v1, a1, b1 = q2, k2, v2, a2, b2
    else:
        q1, k1, v1, a1, b1 = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, bos + 1, bos + 1 < eos, i_hqk, i_hv,
                                         offs_k, offs_v, HQK, HV, D)
        q2, k2, v2, a2, b2 = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, bos + 2, bos + 2 < eos, i_hqk, i_hv,
                                         offs_k, offs_v, HQK, HV, D)
        for t in range(bos, eos):
            q3, k3, v3, a3, b3 = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, t + 3, t + 3 < eos, i_hqk, i_hv,
                                             offs_k, offs_v, HQK, HV, D)
            s, out = _step(s, q0, k0, v0, a0, b0, neg_a, dt_bias, scale)
            tl.store(o_row + t * HV * D, out.to(out_ptr.dtype.element_ty))
            q0, k0, v0, a0, b0 = q1, k1, v1, a1, b1
            q1, k1, v1, a1, b1 = q2, k2, v2, a2, b2
            q2, k2, v2, a2, b2 = q3, k3, v3, a3, b3
    s = tl.where(eos > bos, s, 0.0)
    tl.store(new_state_ptr + tile, s)
