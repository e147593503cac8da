"""Gated Delta Net prefill (4 q/k heads, 8 v heads, d=128, k-last state), chunked WY form in three kernels
(flash-linear-attention's structure: WY prep, then ``chunk_fwd_h``, then ``chunk_fwd_o``): the state's serial
walk along a sequence does only the state recurrence, and the output moves to a fully parallel kernel.

Kernel 1 (``_wy_prep_kernel``, the ``gdn_prefill_chunked_wy`` seed's, imported from ``base.py``, which is that
seed's ``kernel.py``), one program per (chunk of C tokens, v-head) over every chunk of every sequence: per-chunk
``gamma`` = inclusive cumsum of ``log g``, ``W = T (beta exp(gamma) K)``, ``U = T (beta V)`` with
``T = (I + strictly_lower(beta_i (k_i . k_j) exp(gamma_i - gamma_j)))^-1``, to fp32 scratch rows.
Kernel 2 (``_wy_h_kernel``), one program per (sequence, v-head, BV-column tile of V), walks the sequence's chunks
with the [128, BV] fp32 state S in registers; per chunk (2 tensor-core dots instead of the WY seed's 5):

    h[slot] = S                                    (the chunk's start state, fp32 scratch)
    V_new   = U - W @ S                            (fp32 scratch rows, this tile's BV columns)
    S       = exp(gamma_C) S + (K exp(gamma_C - gamma))^T @ V_new

Kernel 3 (``_wy_o_kernel``), one program per (chunk slot, v-head, BV_O-column tile), all chunks in parallel:

    O = scale (exp(gamma) (Q @ h[slot]) + lower_incl(Q K^T exp(gamma_i - gamma_j)) @ V_new)

Chunk slots are numbered as in the prep kernel (the chunks of sequence i follow the sum over j < i of
ceil(len_j / C) slots; kernels find them by walking ``cu_seqlens``: no host sync). The cost: ``h`` scratch of
slots * 8 * 128 * 128 fp32 written once and read once, and V_new written and read once. Padded tail tokens
get ``log g = 0`` (gamma of the last valid token), ``beta = 0``, zero rows. ``scale == 0`` means 1/sqrt(128);
``state`` may be ``None`` (zeros); an empty sequence gets a zero state (as in the reference). fp32 operands on
tensor cores at ``input_precision=PRECISION`` (``tf32`` or ``tf32x3``).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import math

import torch
import triton
import triton.language as tl

from .base import HEAD, NUM_QK_HEADS, NUM_V_HEADS, _check, _wy_prep_kernel

PARAMS = {"C": 64, "BV": 32, "BV_O": 64, "num_warps": 8, "num_warps_o": 8, "num_stages": 1, "PRECISION": "tf32"}  # kernelopt:params


@triton.jit
def _wy_h_kernel(
    k_ptr, w_ptr, u_ptr, g_ptr, state_ptr, cu_ptr, h_ptr, vnew_ptr, new_state_ptr,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, C: tl.constexpr,
    PRECISION: tl.constexpr, HAS_STATE: tl.constexpr,
):
    pid_sh = tl.program_id(0)  # sequence * HV + v-head
    pid_v = tl.program_id(1)
    i_s = pid_sh // HV
    i_hv = pid_sh % HV
    i_hqk = i_hv // (HV // HQK)
    # the sequence's first chunk slot: sum over earlier sequences of ceil(len / C), as the prep kernel counts
    slot0 = (pid_sh * 0).to(tl.int64)
    for i in range(i_s):
        lo = tl.load(cu_ptr + i).to(tl.int64)
        hi = tl.load(cu_ptr + i + 1).to(tl.int64)
        slot0 += (hi - lo + C - 1) // C
    bos = tl.load(cu_ptr + i_s).to(tl.int64)
    eos = tl.load(cu_ptr + i_s + 1).to(tl.int64)
    offs_k = tl.arange(0, D)
    offs_v = pid_v * BV + tl.arange(0, BV)
    offs_c = tl.arange(0, C)

    # S[k, v] = state[seq, head, v, k]
    tile = pid_sh.to(tl.int64) * D * D + offs_k[:, None] + offs_v[None, :] * D
    if HAS_STATE:
        s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([D, BV], dtype=tl.float32)
    # h[slot, head, k, v]: v contiguous
    h_tile = offs_k[:, None] * D + offs_v[None, :]

    for c0 in range(bos, eos, C):
        slot = slot0 + (c0 - bos) // C
        tl.store(h_ptr + (slot * HV + i_hv) * D * D + h_tile, s)
        t = c0 + offs_c
        valid = t < eos
        k = tl.load(k_ptr + ((t * HQK + i_hqk) * D)[:, None] + offs_k[None, :], mask=valid[:, None],
                    other=0.0).to(tl.float32)
        hv_rows = (t * HV + i_hv) * D
        w = tl.load(w_ptr + hv_rows[:, None] + offs_k[None, :], mask=valid[:, None], other=0.0)
        u = tl.load(u_ptr + hv_rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0)
        g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0)
        gamma_last = tl.min(g_raw, axis=0)  # gamma is non-increasing and <= 0: the last valid token's
        gamma = tl.where(valid, g_raw, gamma_last)  # padded tokens keep log g = 0

        v_new = u - tl.dot(w, s, input_precision=PRECISION)
        tl.store(vnew_ptr + hv_rows[:, None] + offs_v[None, :], v_new, mask=valid[:, None])

        k_decayed = k * tl.exp(gamma_last - gamma)[:, None]
        s = tl.exp(gamma_last) * s + tl.dot(tl.trans(k_decayed), v_new, input_precision=PRECISION)

    s = tl.where(eos > bos, s, 0.0)  # the reference leaves an empty sequence's state at zero
    tl.store(new_state_ptr + tile, s)


@triton.jit
def _wy_o_kernel(
    q_ptr, k_ptr, vnew_ptr, g_ptr, h_ptr, cu_ptr, out_ptr, scale, n_seq,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, C: tl.constexpr,
    PRECISION: tl.constexpr,
):
    pid = tl.program_id(0)  # global chunk slot
    i_hv = tl.program_id(1)
    pid_v = tl.program_id(2)
    i_hqk = i_hv // (HV // HQK)
    # which sequence and chunk: walk cu_seqlens, counting ceil(len / C) chunks per sequence
    acc = pid * 0
    c0 = (pid * 0).to(tl.int64)
    eos = (pid * 0).to(tl.int64)
    found = pid < 0
    for i in range(n_seq):
        lo = tl.load(cu_ptr + i).to(tl.int64)
        hi = tl.load(cu_ptr + i + 1).to(tl.int64)
        n_chunks = ((hi - lo + C - 1) // C).to(tl.int32)
        here = (pid >= acc) & (pid < acc + n_chunks)
        c0 = tl.where(here, lo + (pid - acc).to(tl.int64) * C, c0)
        eos = tl.where(here, hi, eos)
        found = found | here
        acc += n_chunks
    if found:
        offs_k = tl.arange(0, D)
        offs_v = pid_v * BV + tl.arange(0, BV)
        offs_c = tl.arange(0, C)
        causal = offs_c[:, None] >= offs_c[None, :]
        t = c0 + offs_c
        valid = t < eos
        qk_rows = ((t * HQK + i_hqk) * D)[:, None] + offs_k[None, :]
        q = tl.load(q_ptr + qk_rows, mask=valid[:, None], other=0.0).to(tl.float32)
        k = tl.load(k_ptr + qk_rows, mask=valid[:, None], other=0.0).to(tl.float32)
        hv_rows = (t * HV + i_hv) * D
        v_new = tl.load(vnew_ptr + hv_rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0)
        s = tl.load(h_ptr + (pid.to(tl.int64) * HV + i_hv) * D * D + offs_k[:, None] * D + offs_v[None, :])
        g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0)
        gamma_last = tl.min(g_raw, axis=0)  # as in the h kernel: padded tokens take the last valid gamma
        gamma = tl.where(valid, g_raw, gamma_last)
        decay = tl.exp(tl.where(causal, gamma[:, None] - gamma[None, :], float("-inf")))

        qs = tl.dot(q, s, input_precision=PRECISION)
        qk = tl.dot(q, tl.trans(k), input_precision=PRECISION) * decay
        o = scale * (tl.exp(gamma)[:, None] * qs + tl.dot(qk, v_new, input_precision=PRECISION))
        tl.store(out_ptr + hv_rows[:, None] + offs_v[None, :], o.to(out_ptr.dtype.element_ty), mask=valid[:, None])


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32)."""
    chunk, bv, bv_o = int(PARAMS["C"]), int(PARAMS["BV"]), int(PARAMS["BV_O"])
    for name, width in (("BV", bv), ("BV_O", bv_o)):
        if HEAD % width != 0 or width < 16:
            raise ValueError(f"gdn_prefill_chunked_wy3: {name}={width} must divide {HEAD} and be >= 16 (tl.dot)")
    if chunk < 16 or chunk & (chunk - 1):
        raise ValueError(f"gdn_prefill_chunked_wy3: C={chunk} must be a power of two >= 16")
    if cu_seqlens.dim() != 1 or cu_seqlens.numel() < 1 or cu_seqlens.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"gdn_prefill_chunked_wy3: cu_seqlens must be a non-empty 1-D int32/int64 tensor, "
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
    warps, stages, precision = int(PARAMS["num_warps"]), int(PARAMS["num_stages"]), str(PARAMS["PRECISION"])
    warps_o = int(PARAMS["num_warps_o"])
    dev = q.device
    w = torch.empty((n_tok, NUM_V_HEADS, HEAD), dtype=torch.float32, device=dev)
    u = torch.empty_like(w)
    v_new = torch.empty_like(w)
    gamma = torch.empty((n_tok, NUM_V_HEADS), dtype=torch.float32, device=dev)
    slots = -(-n_tok // chunk) + n_seq  # >= sum over sequences of ceil(len / C); spare slots are never used
    h = torch.empty((slots, NUM_V_HEADS, HEAD, HEAD), dtype=torch.float32, device=dev)
    _wy_prep_kernel[(slots, NUM_V_HEADS)](
        k, v, A_log, a, dt_bias, b, cu_seqlens, w, u, gamma, n_seq,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, C=chunk, LOG2C=chunk.bit_length() - 1, PRECISION=precision,
        num_warps=warps, num_stages=stages,
    )
    _wy_h_kernel[(n_seq * NUM_V_HEADS, HEAD // bv)](
        k, w, u, gamma, state if state is not None else new_state, cu_seqlens, h, v_new, new_state,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, C=chunk, PRECISION=precision, HAS_STATE=state is not None,
        num_warps=warps, num_stages=stages,
    )
    _wy_o_kernel[(slots, NUM_V_HEADS, HEAD // bv_o)](
        q, k, v_new, gamma, h, cu_seqlens, output, scale, n_seq,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv_o, C=chunk, PRECISION=precision,
        num_warps=warps_o, num_stages=stages,
    )
