"""Gated Delta Net prefill (4 q/k heads, 8 v heads, d=128, k-last state), token-recurrent Triton kernel.

One program per (sequence, v-head, V-tile of BV rows). It reads its sequence's bounds from
``cu_seqlens`` in the kernel (no host sync), loads the k-last state tile ``S[v, k]`` ([BV, 128] fp32,
the transpose of the reference's ``[K, V]`` working layout) into registers, and runs the reference
recurrence token by token in fp32:

    g = exp(-exp(A_log) * softplus(a_t + dt_bias)),  beta = sigmoid(b_t)
    delta = beta * (v_t - g * (S @ k_t))            (= beta * (v - old_v), old_v = k @ (g * state))
    out_t = scale * (g * (S @ q_t) + delta * (k_t . q_t))   (= scale * q @ state_new)
    S     = g * S + delta outer k_t

Both row reductions (S @ k, S @ q) read the state *before* the update, so they are independent
(a shorter per-token dependency chain than reducing the updated state). The next token's
q/k/v/a/b are loaded one iteration ahead so their latency overlaps the current update.
q/k head ``h // 2`` serves v-head ``h`` (GVA). ``scale == 0`` means 1/sqrt(128). ``state`` may be
``None`` (zeros). The final state is written once; an empty sequence gets a zero state (as in the
reference). Latency-optimal for short sequences: the work is serial in tokens, parallel over
sequences * 8 heads * 128/BV tiles.
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import math

import torch
import triton
import triton.language as tl

PARAMS = {"BV": 8, "num_warps": 4}  # kernelopt:params

NUM_QK_HEADS = 4
NUM_V_HEADS = 8
HEAD = 128


@triton.jit
def _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, t, valid, i_hqk, i_hv, offs_k, offs_v,
                HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr):
    """q, k ([D]), v ([BV]) and the raw gate inputs a, b of token ``t`` (zeros where not ``valid``)."""
    n = tl.where(valid, D, 0)  # vector masks as `offs < n` (the interpreter rejects scalar & vector masks)
    qk = (t * HQK + i_hqk) * D + offs_k
    q = tl.load(q_ptr + qk, mask=offs_k < n, other=0.0).to(tl.float32)
    k = tl.load(k_ptr + qk, mask=offs_k < n, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + (t * HV + i_hv) * D + offs_v, mask=offs_v < n, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + t * HV + i_hv, mask=valid, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + t * HV + i_hv, mask=valid, other=0.0).to(tl.float32)
    return q, k, v, a, b


@triton.jit
def _gdn_prefill_recurrent_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, cu_ptr, out_ptr, new_state_ptr,
    scale,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, HAS_STATE: tl.constexpr,
):
    pid_sh = tl.program_id(0)  # sequence * HV + v-head
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

    q, k, v, a, b = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, bos, bos < eos, i_hqk, i_hv,
                                offs_k, offs_v, HQK, HV, D)
    for t in range(bos, eos):
        # prefetch token t + 1 (masked off past the sequence end)
        nq, nk, nv, na, nb = _load_token(q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, t + 1, t + 1 < eos, i_hqk, i_hv,
                                         offs_k, offs_v, HQK, HV, D)
        x = a + dt_bias
        softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
        g = tl.exp(neg_a * softplus_x)
        beta = tl.sigmoid(b)

        sk = tl.sum(s * k[None, :], axis=1)
        sq = tl.sum(s * q[None, :], axis=1)
        delta = beta * (v - g * sk)
        out = scale * (g * sq + delta * tl.sum(k * q, axis=0))
        s = g * s + delta[:, None] * k[None, :]
        tl.store(out_ptr + (t * HV + i_hv) * D + offs_v, out.to(out_ptr.dtype.element_ty))
        q, k, v, a, b = nq, nk, nv, na, nb

    s = tl.where(eos > bos, s, 0.0)  # the reference leaves an empty sequence's state at zero
    tl.store(new_state_ptr + tile, s)


def _check(name: str, t: torch.Tensor, shape: tuple[int, ...], out: bool = False) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"gdn_prefill_recurrent: {name} has shape {tuple(t.shape)}, expected {shape}")
    if out and not t.is_contiguous():
        raise ValueError(f"gdn_prefill_recurrent: output tensor {name} must be contiguous")
    return t.contiguous()


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32)."""
    bv = int(PARAMS["BV"])
    if HEAD % bv != 0:
        raise ValueError(f"gdn_prefill_recurrent: BV={bv} must divide {HEAD}")
    if cu_seqlens.dim() != 1 or cu_seqlens.numel() < 1 or cu_seqlens.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"gdn_prefill_recurrent: cu_seqlens must be a non-empty 1-D int32/int64 tensor, "
                         f"got shape {tuple(cu_seqlens.shape)} dtype {cu_seqlens.dtype}")
    n_tok, n_seq = q.shape[0], cu_seqlens.numel() - 1
    q = _check("q", q, (n_tok, NUM_QK_HEADS, HEAD))
    k = _check("k", k, (n_tok, NUM_QK_HEADS, HEAD))
    v = _check("v", v, (n_tok, NUM_V_HEADS, HEAD))
    a = _check("a", a, (n_tok, NUM_V_HEADS))
    b = _check("b", b, (n_tok, NUM_V_HEADS))
    A_log = _check("A_log", A_log, (NUM_V_HEADS,))
    dt_bias = _check("dt_bias", dt_bias, (NUM_V_HEADS,))
    _check("output", output, (n_tok, NUM_V_HEADS, HEAD), out=True)
    _check("new_state", new_state, (n_seq, NUM_V_HEADS, HEAD, HEAD), out=True)
    if state is not None:
        state = _check("state", state, (n_seq, NUM_V_HEADS, HEAD, HEAD))
    cu_seqlens = cu_seqlens.contiguous()
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD)
    if n_seq == 0:
        return
    if n_tok == 0:  # only empty sequences: zero states, as in the reference (and no null q/k/v pointers)
        new_state.zero_()
        return
    grid = (n_seq * NUM_V_HEADS, HEAD // bv)
    _gdn_prefill_recurrent_kernel[grid](
        q, k, v, state if state is not None else new_state, A_log, a, dt_bias, b, cu_seqlens,
        output, new_state, scale,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, HAS_STATE=state is not None,
        num_warps=int(PARAMS["num_warps"]),
    )
