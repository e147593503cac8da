"""Gated Delta Net single-token decode (4 q/k heads, 8 v heads, d=128, k-last state) in Triton.

One program per (batch, v-head, V-tile of BV rows). It loads the k-last state tile
``S[v, k]`` ([BV, 128] fp32, rows contiguous in k) - the transpose of the reference's ``[K, V]``
working layout - and applies the reference update in fp32:

    g = exp(-exp(A_log) * softplus(a + dt_bias)),  beta = sigmoid(b)
    S_old   = g * S
    old_v   = S_old @ k            (= k @ state[K,V] in the reference)
    new_v   = beta * v + (1 - beta) * old_v
    S_new   = S_old + (new_v - old_v) outer k
    out     = scale * (S_new @ q)  (= scale * q @ state[K,V])

q/k head ``h // 2`` serves v-head ``h`` (GVA, repeat_interleave). ``scale == 0`` means 1/sqrt(128).
The state tile never leaves registers: 1 read + 1 write of the 64 KiB per-head state, which is the
whole cost at large batch (memory-bound); small batches are launch/latency-bound, where a smaller BV
gives more programs. ``state`` may be ``None`` (zeros, as in the reference).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state)`` (DPS).
"""

import math

import torch
import triton
import triton.language as tl

PARAMS = {"BV": 8, "num_warps": 8}  # kernelopt:params

NUM_QK_HEADS = 4
NUM_V_HEADS = 8
HEAD = 128


@triton.jit
def _gdn_decode_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, out_ptr, new_state_ptr,
    scale,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, HAS_STATE: tl.constexpr,
):
    pid_v = tl.program_id(0)
    pid_bh = tl.program_id(1)
    i_b = pid_bh // HV
    i_hv = pid_bh % HV
    i_hqk = i_hv // (HV // HQK)

    offs_k = tl.arange(0, D)
    offs_v = pid_v * BV + tl.arange(0, BV)

    # gates (scalars, fp32)
    x = tl.load(a_ptr + pid_bh).to(tl.float32) + tl.load(dt_bias_ptr + i_hv).to(tl.float32)
    softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
    g = tl.exp(-tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32)) * softplus_x)
    beta = tl.sigmoid(tl.load(b_ptr + pid_bh).to(tl.float32))

    qk_base = (i_b * HQK + i_hqk).to(tl.int64) * D
    q = tl.load(q_ptr + qk_base + offs_k).to(tl.float32)
    k = tl.load(k_ptr + qk_base + offs_k).to(tl.float32)
    v = tl.load(v_ptr + pid_bh.to(tl.int64) * D + offs_v).to(tl.float32)

    tile = pid_bh.to(tl.int64) * D * D + offs_v[:, None] * D + offs_k[None, :]
    if HAS_STATE:
        s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([BV, D], dtype=tl.float32)

    s = g * s
    old_v = tl.sum(s * k[None, :], axis=1)
    new_v = beta * v + (1.0 - beta) * old_v
    s = s + (new_v - old_v)[:, None] * k[None, :]
    out = scale * tl.sum(s * q[None, :], axis=1)

    tl.store(new_state_ptr + tile, s)
    tl.store(out_ptr + pid_bh.to(tl.int64) * D + offs_v, out.to(out_ptr.dtype.element_ty))


def _check(name: str, t: torch.Tensor, shape: tuple[int, ...], out: bool = False) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"gdn_decode_vtile: {name} has shape {tuple(t.shape)}, expected {shape}")
    if out and not t.is_contiguous():
        raise ValueError(f"gdn_decode_vtile: output tensor {name} must be contiguous")
    return t.contiguous()


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state) -> None:
    """Write the decode output ([B,1,8,128] bf16) and the updated k-last state ([B,8,128,128] fp32)."""
    bv = int(PARAMS["BV"])
    batch = q.shape[0]
    if HEAD % bv != 0:
        raise ValueError(f"gdn_decode_vtile: BV={bv} must divide {HEAD}")
    q = _check("q", q, (batch, 1, NUM_QK_HEADS, HEAD))
    k = _check("k", k, (batch, 1, NUM_QK_HEADS, HEAD))
    v = _check("v", v, (batch, 1, NUM_V_HEADS, HEAD))
    a = _check("a", a, (batch, 1, NUM_V_HEADS))
    b = _check("b", b, (batch, 1, NUM_V_HEADS))
    _check("output", output, (batch, 1, NUM_V_HEADS, HEAD), out=True)
    _check("new_state", new_state, (batch, NUM_V_HEADS, HEAD, HEAD), out=True)
    if state is not None:
        state = _check("state", state, (batch, NUM_V_HEADS, HEAD, HEAD))
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD)
    if batch == 0:
        return
    grid = (HEAD // bv, batch * NUM_V_HEADS)
    _gdn_decode_kernel[grid](
        q, k, v, state if state is not None else new_state, A_log.contiguous(), a, dt_bias.contiguous(),
        b, output, new_state, scale,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, HAS_STATE=state is not None,
        num_warps=int(PARAMS["num_warps"]),
    )
