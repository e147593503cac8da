"""Gated Delta Net prefill: ``gdn_prefill_chunked_wy3b`` (WY prep, state walk, parallel output; bf16 scratch and
dots after the prep) with the prep kernel's chunk inverse taken in two halves (``PREP="halves"``).

Why: the prep kernel computes, per (chunk, v-head), ``T = (I + A)^-1`` of the chunk's strictly lower ``A`` by a
squaring chain of ``log2(C) - 1`` steps, each two dependent [C, C] x [C, C] dots. At C 64 that is ten dependent
64 x 64 dots on 64 x 64 fp32 tiles per program (238 registers a thread at 8 warps: one program per SM). On the
H200 (2026-12-04 call FA, ``benchmarks/results/gdn_prefill_kernel_sweep_h200_fa_546aba8e.md``) the C 64 prep took
0.1675 ms at 8,192 tokens against 0.0548 ms at C 32, and it is about a third of the retained dispatch's C 64 leaf
(the workloads of up to 16 sequences: span anatomy of call FE, 20.6 of 48 us at 959 tokens). Here the chunk is
split into halves ``1`` and ``2`` of ``H = C / 2`` rows:

    I + A = [[I + A11, 0], [A21, I + A22]]   ->   T = [[T11, 0], [-T22 A21 T11, T22]]

``T11`` and ``T22`` by the same squaring chain on [H, H] tiles (``log2(H) - 1`` steps, the two chains
independent), the off-diagonal block by two [H, H] dots, and ``W = T (beta exp(gamma) K)``, ``U = T (beta V)``
per half (``W2 = T21 X1 + T22 X2``). Same algebra, same tf32 dots (``PRECISION``), tiles a quarter the size:
C 64 costs about what two C 32 chunks do. The state walk and output kernels, the scratch (W, U, V_new, h as
bf16 by default) and the call are wy3b's (``wy3b.py`` is that seed's ``kernel.py``; this package's copy of it
gets the prep kernel below). ``PREP="full"`` is wy3b itself. Needs ``C >= 32`` (a half is a ``tl.dot`` operand).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import triton
import triton.language as tl

from . import wy3b as _wy3b
from .chunk_slots import chunk_of_slot
from .fastlaunch import fast
from .wy3b import _h_kernel, _o_kernel, low_flags, scratch_dtype  # noqa: F401 - the kernel sweep times them
from .wy3v import _prep_kernel  # noqa: F401 - the full-chunk prep, for the kernel sweep

PARAMS = {"C": 64, "BV": 64, "BV_O": 64, "num_warps": 4, "num_warps_h": 4, "num_warps_o": 4, "num_stages": 1, "MAXNREG": 0, "INTER": "bf16", "STATES": "bf16", "PRECISION": "tf32", "PREP": "halves"}  # kernelopt:params

PREPS = ("full", "halves")


@triton.jit
def _half_gates(a_ptr, b_ptr, dt_bias, neg_a, t, valid, i_hv, HV: tl.constexpr):
    """log g (<= 0; 0 past the sequence) and beta (0 past the sequence) of tokens ``t``."""
    x = tl.load(a_ptr + t * HV + i_hv, mask=valid, other=0.0).to(tl.float32) + dt_bias
    softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
    log_g = tl.where(valid, neg_a * softplus_x, 0.0)
    beta = tl.where(valid, tl.sigmoid(tl.load(b_ptr + t * HV + i_hv, mask=valid, other=0.0).to(tl.float32)), 0.0)
    return log_g, beta


@triton.jit
def _unit_lower_inverse(n, offs, STEPS: tl.constexpr, PRECISION: tl.constexpr):
    """``(I - N)^-1`` of a strictly lower (nilpotent) ``N`` of 2^(STEPS + 1) rows: prod_j (I + N^(2^j))."""
    t_inv = tl.where(offs[:, None] == offs[None, :], 1.0, 0.0) + n
    x_pow = n
    for _ in tl.static_range(STEPS):
        x_pow = tl.dot(x_pow, x_pow, input_precision=PRECISION)
        t_inv += tl.dot(t_inv, x_pow, input_precision=PRECISION)
    return t_inv


@triton.jit
def _prep_halves_kernel(
    k_ptr, v_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, cu_ptr, w_ptr, u_ptr, g_ptr, n_seq,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, C: tl.constexpr, LOG2C: tl.constexpr,
    PRECISION: tl.constexpr,
):
    """Per (chunk slot, v-head): gamma, W = T (beta exp(gamma) K), U = T (beta V), T = (I + A)^-1 by halves."""
    pid = tl.program_id(0)
    i_hv = tl.program_id(1)
    i_hqk = i_hv // (HV // HQK)
    c0, eos, found = chunk_of_slot(cu_ptr, n_seq, pid, C)
    if found:
        H: tl.constexpr = C // 2
        offs_d = tl.arange(0, D)
        offs_h = tl.arange(0, H)
        t1 = c0 + offs_h
        t2 = t1 + H
        valid1 = t1 < eos
        valid2 = t2 < eos
        k1 = tl.load(k_ptr + ((t1 * HQK + i_hqk) * D)[:, None] + offs_d[None, :], mask=valid1[:, None],
                     other=0.0).to(tl.float32)
        k2 = tl.load(k_ptr + ((t2 * HQK + i_hqk) * D)[:, None] + offs_d[None, :], mask=valid2[:, None],
                     other=0.0).to(tl.float32)
        dt_bias = tl.load(dt_bias_ptr + i_hv).to(tl.float32)
        neg_a = -tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32))
        log_g1, beta1 = _half_gates(a_ptr, b_ptr, dt_bias, neg_a, t1, valid1, i_hv, HV)
        log_g2, beta2 = _half_gates(a_ptr, b_ptr, dt_bias, neg_a, t2, valid2, i_hv, HV)
        gamma1 = tl.cumsum(log_g1, axis=0)
        gamma2 = tl.cumsum(log_g2, axis=0) + tl.sum(log_g1, axis=0)
        lower = offs_h[:, None] > offs_h[None, :]
        # N = -A per block (A = beta_i (k_i . k_j) exp(gamma_i - gamma_j) below the diagonal); gamma only falls,
        # so every exponent taken is <= 0
        n11 = tl.where(lower, -(beta1[:, None] * tl.dot(k1, tl.trans(k1), input_precision=PRECISION)
                                * tl.exp(tl.where(lower, gamma1[:, None] - gamma1[None, :], float("-inf")))), 0.0)
        n22 = tl.where(lower, -(beta2[:, None] * tl.dot(k2, tl.trans(k2), input_precision=PRECISION)
                                * tl.exp(tl.where(lower, gamma2[:, None] - gamma2[None, :], float("-inf")))), 0.0)
        n21 = -(beta2[:, None] * tl.dot(k2, tl.trans(k1), input_precision=PRECISION)
                * tl.exp(gamma2[:, None] - gamma1[None, :]))
        t11 = _unit_lower_inverse(n11, offs_h, LOG2C - 2, PRECISION)
        t22 = _unit_lower_inverse(n22, offs_h, LOG2C - 2, PRECISION)
        # T21 = -T22 A21 T11 = T22 N21 T11
        t21 = tl.dot(t22, tl.dot(n21, t11, input_precision=PRECISION), input_precision=PRECISION)
        x1 = (beta1 * tl.exp(gamma1))[:, None] * k1
        x2 = (beta2 * tl.exp(gamma2))[:, None] * k2
        rows1 = ((t1 * HV + i_hv) * D)[:, None] + offs_d[None, :]
        rows2 = ((t2 * HV + i_hv) * D)[:, None] + offs_d[None, :]
        tl.store(w_ptr + rows1, tl.dot(t11, x1, input_precision=PRECISION), mask=valid1[:, None])
        tl.store(w_ptr + rows2, tl.dot(t21, x1, input_precision=PRECISION) + tl.dot(t22, x2, input_precision=PRECISION),
                 mask=valid2[:, None])
        y1 = beta1[:, None] * tl.load(v_ptr + ((t1 * HV + i_hv) * D)[:, None] + offs_d[None, :], mask=valid1[:, None],
                                      other=0.0).to(tl.float32)
        y2 = beta2[:, None] * tl.load(v_ptr + ((t2 * HV + i_hv) * D)[:, None] + offs_d[None, :], mask=valid2[:, None],
                                      other=0.0).to(tl.float32)
        tl.store(u_ptr + rows1, tl.dot(t11, y1, input_precision=PRECISION), mask=valid1[:, None])
        tl.store(u_ptr + rows2, tl.dot(t21, y1, input_precision=PRECISION) + tl.dot(t22, y2, input_precision=PRECISION),
                 mask=valid2[:, None])
        tl.store(g_ptr + t1 * HV + i_hv, gamma1, mask=valid1)
        tl.store(g_ptr + t2 * HV + i_hv, gamma2, mask=valid2)


# this package's own copy of wy3b runs at these PARAMS, with the halves prep when asked for
_wy3b.PARAMS = PARAMS
if PARAMS["PREP"] == "halves":
    _wy3b._PREP = fast(_prep_halves_kernel)


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32), as wy3b."""
    if PARAMS["PREP"] not in PREPS:
        raise ValueError(f"gdn_prefill_chunked_wy3h: PREP={PARAMS['PREP']!r} must be one of {list(PREPS)}")
    if PARAMS["PREP"] == "halves" and int(PARAMS["C"]) < 32:
        raise ValueError(f"gdn_prefill_chunked_wy3h: PREP='halves' needs C >= 32 (a half of C={PARAMS['C']} rows "
                         "is under tl.dot's 16)")
    _wy3b.run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)
