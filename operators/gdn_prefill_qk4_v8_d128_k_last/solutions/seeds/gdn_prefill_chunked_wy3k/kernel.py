"""Gated Delta Net prefill: ``gdn_prefill_chunked_wy3h`` (WY prep with the chunk inverse in halves, state walk,
parallel output) with one prep program per (chunk, q/k head) doing both v-heads that share it.

Why: wy3h's prep runs one program per (chunk slot, v-head). The definition has 8 v-heads on 4 q/k heads, so the two
v-heads of a q/k head each load the chunk's keys and form the same three key products ``K1 K1^T``, ``K2 K2^T``,
``K2 K1^T`` (only the gates and beta differ per v-head). At 8,192 tokens in 57 sequences (2026-12-07 call QH, an
H100) that prep takes 57 of the call's ~220 us at 36 % SM and 21 % DRAM throughput with 18.8 % occupancy: short
chains of dependent small dots, latency-bound. Here a program loads the keys and forms the products once, then runs
the two v-heads' gates, inverses and stores in one unrolled loop: half the key loads and key dots, and two
independent inverse chains in one program for the scheduler to interleave. Same operations on the same values in
the same order per v-head: equal to wy3h in the interpreter. The state walk, output kernel, scratch and call are
wy3b's, as in wy3h (the prep's grid ``(slots, 8)`` becomes ``(slots, 4)``). Needs ``C >= 32``.
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import triton
import triton.language as tl

from . import wy3b as _wy3b
from .chunk_slots import chunk_of_slot
from .fastlaunch import fast
from .gdn_prefill_args import NUM_QK_HEADS
from .wy3h import _half_gates, _unit_lower_inverse

PARAMS = {"C": 64, "BV": 64, "BV_O": 64, "num_warps": 4, "num_warps_h": 4, "num_warps_o": 4, "num_stages": 1, "MAXNREG": 0, "INTER": "bf16", "STATES": "bf16", "PRECISION": "tf32"}  # kernelopt:params


@triton.jit
def _prep_pair_kernel(
    k_ptr, v_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, cu_ptr, w_ptr, u_ptr, g_ptr, n_seq,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, C: tl.constexpr, LOG2C: tl.constexpr,
    PRECISION: tl.constexpr,
):
    """Per (chunk slot, q/k head): the key products once, then for each of its v-heads gamma, W = T (beta exp(gamma)
    K), U = T (beta V), T = (I + A)^-1 by halves (wy3h's ``_prep_halves_kernel`` per v-head)."""
    pid = tl.program_id(0)
    i_hqk = tl.program_id(1)
    c0, eos, found = chunk_of_slot(cu_ptr, n_seq, pid, C)
    if found:
        H: tl.constexpr = C // 2
        GROUP: tl.constexpr = HV // HQK
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
        kk11 = tl.dot(k1, tl.trans(k1), input_precision=PRECISION)
        kk22 = tl.dot(k2, tl.trans(k2), input_precision=PRECISION)
        kk21 = tl.dot(k2, tl.trans(k1), input_precision=PRECISION)
        lower = offs_h[:, None] > offs_h[None, :]
        for j in tl.static_range(GROUP):
            i_hv = i_hqk * GROUP + j
            dt_bias = tl.load(dt_bias_ptr + i_hv).to(tl.float32)
            neg_a = -tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32))
            log_g1, beta1 = _half_gates(a_ptr, b_ptr, dt_bias, neg_a, t1, valid1, i_hv, HV)
            log_g2, beta2 = _half_gates(a_ptr, b_ptr, dt_bias, neg_a, t2, valid2, i_hv, HV)
            gamma1 = tl.cumsum(log_g1, axis=0)
            gamma2 = tl.cumsum(log_g2, axis=0) + tl.sum(log_g1, axis=0)
            # N = -A per block, as wy3h (every exponent taken is <= 0)
            n11 = tl.where(lower, -(beta1[:, None] * kk11
                                    * tl.exp(tl.where(lower, gamma1[:, None] - gamma1[None, :], float("-inf")))), 0.0)
            n22 = tl.where(lower, -(beta2[:, None] * kk22
                                    * tl.exp(tl.where(lower, gamma2[:, None] - gamma2[None, :], float("-inf")))), 0.0)
            n21 = -(beta2[:, None] * kk21 * tl.exp(gamma2[:, None] - gamma1[None, :]))
            t11 = _unit_lower_inverse(n11, offs_h, LOG2C - 2, PRECISION)
            t22 = _unit_lower_inverse(n22, offs_h, LOG2C - 2, PRECISION)
            t21 = tl.dot(t22, tl.dot(n21, t11, input_precision=PRECISION), input_precision=PRECISION)
            x1 = (beta1 * tl.exp(gamma1))[:, None] * k1
            x2 = (beta2 * tl.exp(gamma2))[:, None] * k2
            rows1 = ((t1 * HV + i_hv) * D)[:, None] + offs_d[None, :]
            rows2 = ((t2 * HV + i_hv) * D)[:, None] + offs_d[None, :]
            tl.store(w_ptr + rows1, tl.dot(t11, x1, input_precision=PRECISION), mask=valid1[:, None])
            tl.store(w_ptr + rows2, tl.dot(t21, x1, input_precision=PRECISION)
                     + tl.dot(t22, x2, input_precision=PRECISION), mask=valid2[:, None])
            y1 = beta1[:, None] * tl.load(v_ptr + rows1, mask=valid1[:, None], other=0.0).to(tl.float32)
            y2 = beta2[:, None] * tl.load(v_ptr + rows2, mask=valid2[:, None], other=0.0).to(tl.float32)
            tl.store(u_ptr + rows1, tl.dot(t11, y1, input_precision=PRECISION), mask=valid1[:, None])
            tl.store(u_ptr + rows2, tl.dot(t21, y1, input_precision=PRECISION)
                     + tl.dot(t22, y2, input_precision=PRECISION), mask=valid2[:, None])
            tl.store(g_ptr + t1 * HV + i_hv, gamma1, mask=valid1)
            tl.store(g_ptr + t2 * HV + i_hv, gamma2, mask=valid2)


class _PerQKHead:
    """wy3b launches its prep over ``(slots, v-heads)``; this one runs over ``(slots, q/k heads)``."""

    def __init__(self, kernel):
        self.kernel = kernel

    def __getitem__(self, grid):
        return self.kernel[(grid[0], NUM_QK_HEADS)]


# this package's own copy of wy3b runs at these PARAMS with the paired prep (importing wy3h above set its own; these
# replace them)
_wy3b.PARAMS = PARAMS
_wy3b._PREP = _PerQKHead(fast(_prep_pair_kernel))


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32), as wy3b."""
    if int(PARAMS["C"]) < 32:
        raise ValueError(f"gdn_prefill_chunked_wy3k: the halves prep needs C >= 32 (a half of C={PARAMS['C']} rows "
                         "is under tl.dot's 16)")
    _wy3b.run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)
