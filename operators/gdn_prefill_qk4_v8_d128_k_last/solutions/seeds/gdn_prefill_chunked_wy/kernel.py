"""Gated Delta Net prefill (4 q/k heads, 8 v heads, d=128, k-last state), chunked WY form in two kernels:
the per-chunk work that does not depend on the state runs in parallel over every chunk first, so the
state's serial walk along a sequence does only what needs the state.

Kernel 1 (``_wy_prep_kernel``), one program per (chunk of C tokens, v-head), all chunks of all sequences at
once (a program finds its sequence and chunk by walking ``cu_seqlens`` in the kernel: no host sync), with
``gamma`` = inclusive cumsum of ``log g`` and ``beta`` per token in fp32:

    A = strictly_lower(beta_i (k_i . k_j) exp(gamma_i - gamma_j)),  T = (I + A)^-1   (repeated squaring)
    W = T @ (beta exp(gamma) K)      [C, 128]      U = T @ (beta V)      [C, 128]

written to fp32 scratch rows ``w``, ``u`` (one row per token and v-head) and ``gamma``.
Kernel 2 (``_wy_state_kernel``), one program per (sequence, v-head, BV-column tile of V), walks the sequence's
chunks holding the [128, BV] fp32 state S in registers:

    V_new = U - W @ S
    O     = scale (exp(gamma) (Q @ S) + lower(Q K^T exp(gamma_i - gamma_j)) @ V_new)
    S     = exp(gamma_C) S + (K exp(gamma_C - gamma))^T @ V_new

(the same algebra as ``gdn_prefill_chunked``: V_new = T beta (V - exp(gamma) K S) = U - W S). The serial chain
per chunk drops from ~17 tensor-core dots (with the log2 C squaring steps of the inverse, recomputed for every
V tile) to 5; the inverse is computed once per (chunk, head), in parallel. Padded tail tokens get
``log g = 0``, ``beta = 0``, zero rows. ``scale == 0`` means 1/sqrt(128); ``state`` may be ``None`` (zeros);
an empty sequence gets a zero state (as in the reference). fp32 operands on tensor cores at
``input_precision=PRECISION`` (``tf32`` or ``tf32x3``, as the fused chunked seed).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import math

import torch
import triton
import triton.language as tl

PARAMS = {"C": 64, "BV": 32, "num_warps": 8, "num_stages": 1, "PRECISION": "tf32"}  # kernelopt:params

NUM_QK_HEADS = 4
NUM_V_HEADS = 8
HEAD = 128


@triton.jit
def _wy_prep_kernel(
    k_ptr, v_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, cu_ptr, w_ptr, u_ptr, g_ptr, n_seq,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, C: tl.constexpr, LOG2C: tl.constexpr,
    PRECISION: tl.constexpr,
):
    pid = tl.program_id(0)  # global chunk slot
    i_hv = tl.program_id(1)
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
        offs_d = tl.arange(0, D)
        offs_c = tl.arange(0, C)
        t = c0 + offs_c
        valid = t < eos
        eye = tl.where(offs_c[:, None] == offs_c[None, :], 1.0, 0.0)
        neg_a = -tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32))
        dt_bias = tl.load(dt_bias_ptr + i_hv).to(tl.float32)
        k = tl.load(k_ptr + ((t * HQK + i_hqk) * D)[:, None] + offs_d[None, :], mask=valid[:, None],
                    other=0.0).to(tl.float32)
        v = tl.load(v_ptr + ((t * HV + i_hv) * D)[:, None] + offs_d[None, :], mask=valid[:, None],
                    other=0.0).to(tl.float32)
        x = tl.load(a_ptr + t * HV + i_hv, mask=valid, other=0.0).to(tl.float32) + dt_bias
        softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
        log_g = tl.where(valid, neg_a * softplus_x, 0.0)
        beta = tl.where(valid, tl.sigmoid(tl.load(b_ptr + t * HV + i_hv, mask=valid, other=0.0).to(tl.float32)),
                        0.0)
        gamma = tl.cumsum(log_g, axis=0)
        lower = offs_c[:, None] > offs_c[None, :]
        decay = tl.exp(tl.where(lower, gamma[:, None] - gamma[None, :], float("-inf")))
        kk = tl.dot(k, tl.trans(k), input_precision=PRECISION)
        x_pow = tl.where(lower, -(beta[:, None] * kk * decay), 0.0)
        t_inv = eye + x_pow
        for _ in tl.static_range(LOG2C - 1):
            x_pow = tl.dot(x_pow, x_pow, input_precision=PRECISION)
            t_inv += tl.dot(t_inv, x_pow, input_precision=PRECISION)
        w = tl.dot(t_inv, (beta * tl.exp(gamma))[:, None] * k, input_precision=PRECISION)
        u = tl.dot(t_inv, beta[:, None] * v, input_precision=PRECISION)
        rows = ((t * HV + i_hv) * D)[:, None] + offs_d[None, :]
        tl.store(w_ptr + rows, w, mask=valid[:, None])
        tl.store(u_ptr + rows, u, mask=valid[:, None])
        tl.store(g_ptr + t * HV + i_hv, gamma, mask=valid)


@triton.jit
def _wy_state_kernel(
    q_ptr, k_ptr, w_ptr, u_ptr, g_ptr, state_ptr, cu_ptr, out_ptr, new_state_ptr, scale,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, C: tl.constexpr,
    PRECISION: tl.constexpr, HAS_STATE: tl.constexpr,
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
    offs_c = tl.arange(0, C)
    causal = offs_c[:, None] >= offs_c[None, :]

    # S[k, v] = state[seq, head, v, k]
    tile = pid_sh.to(tl.int64) * D * D + offs_k[:, None] + offs_v[None, :] * D
    if HAS_STATE:
        s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([D, BV], dtype=tl.float32)

    for c0 in range(bos, eos, C):
        t = c0 + offs_c
        valid = t < eos
        qk_rows = ((t * HQK + i_hqk) * D)[:, None] + offs_k[None, :]
        q = tl.load(q_ptr + qk_rows, mask=valid[:, None], other=0.0).to(tl.float32)
        k = tl.load(k_ptr + qk_rows, mask=valid[:, None], other=0.0).to(tl.float32)
        hv_rows = (t * HV + i_hv) * D
        w = tl.load(w_ptr + hv_rows[:, None] + offs_k[None, :], mask=valid[:, None], other=0.0)
        u = tl.load(u_ptr + hv_rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0)
        g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0)
        gamma_last = tl.min(g_raw, axis=0)  # gamma is non-increasing and <= 0: the last valid token's
        gamma = tl.where(valid, g_raw, gamma_last)  # padded tokens keep log g = 0
        decay = tl.exp(tl.where(causal, gamma[:, None] - gamma[None, :], float("-inf")))

        v_new = u - tl.dot(w, s, input_precision=PRECISION)
        qs = tl.dot(q, s, input_precision=PRECISION)
        qk = tl.dot(q, tl.trans(k), input_precision=PRECISION) * decay
        o = scale * (tl.exp(gamma)[:, None] * qs + tl.dot(qk, v_new, input_precision=PRECISION))
        tl.store(out_ptr + hv_rows[:, None] + offs_v[None, :], o.to(out_ptr.dtype.element_ty), mask=valid[:, None])

        k_decayed = k * tl.exp(gamma_last - gamma)[:, None]
        s = tl.exp(gamma_last) * s + tl.dot(tl.trans(k_decayed), v_new, input_precision=PRECISION)

    s = tl.where(eos > bos, s, 0.0)  # the reference leaves an empty sequence's state at zero
    tl.store(new_state_ptr + tile, s)


def _check(name: str, t: torch.Tensor, shape: tuple[int, ...], out: bool = False) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"gdn_prefill_chunked_wy: {name} has shape {tuple(t.shape)}, expected {shape}")
    if out and not t.is_contiguous():
        raise ValueError(f"gdn_prefill_chunked_wy: output tensor {name} must be contiguous")
    return t.contiguous()


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32)."""
    chunk, bv = int(PARAMS["C"]), int(PARAMS["BV"])
    if HEAD % bv != 0 or bv < 16:
        raise ValueError(f"gdn_prefill_chunked_wy: BV={bv} must divide {HEAD} and be >= 16 (tl.dot)")
    if chunk < 16 or chunk & (chunk - 1):
        raise ValueError(f"gdn_prefill_chunked_wy: C={chunk} must be a power of two >= 16")
    if cu_seqlens.dim() != 1 or cu_seqlens.numel() < 1 or cu_seqlens.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"gdn_prefill_chunked_wy: cu_seqlens must be a non-empty 1-D int32/int64 tensor, "
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
    w = torch.empty((n_tok, NUM_V_HEADS, HEAD), dtype=torch.float32, device=q.device)
    u = torch.empty_like(w)
    gamma = torch.empty((n_tok, NUM_V_HEADS), dtype=torch.float32, device=q.device)
    slots = -(-n_tok // chunk) + n_seq  # >= sum over sequences of ceil(len / C); spare programs exit
    _wy_prep_kernel[(slots, NUM_V_HEADS)](
        k, v, A_log, a, dt_bias, b, cu_seqlens, w, u, gamma, n_seq,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, C=chunk, LOG2C=chunk.bit_length() - 1, PRECISION=precision,
        num_warps=warps, num_stages=stages,
    )
    _wy_state_kernel[(n_seq * NUM_V_HEADS, HEAD // bv)](
        q, k, w, u, gamma, state if state is not None else new_state, cu_seqlens, output, new_state, scale,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, C=chunk, PRECISION=precision, HAS_STATE=state is not None,
        num_warps=warps, num_stages=stages,
    )
