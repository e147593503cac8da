"""Gated Delta Net prefill in one launch (``gdn_prefill_onelaunch``'s roles and flags) with the state walk loading
each chunk's inputs one chunk ahead.

Why: on the H200 (2026-12-06 call PA, all 96 workloads of the one-launch dispatch) the one-launch kernel's time grows
by ~4.4 us per chunk of a batch's longest sequence (525 tokens / 1 sequence: 62 us; 1,377 / 1: 126 us; one chunk:
~26 us), while a chunk's state step is two [64, 128] x [128, BV] dots and their elementwise work. In
``gdn_prefill_onelaunch``'s walk every chunk starts with a wait on its prep flag and then the loads of its K, W, U
and gamma rows (~1-2 us from L2 / HBM), and only then the dots that need the state: the loads sit on the serial
chain of every chunk. Here the walk waits on chunk c + 1's prep flag and issues chunk c + 1's loads at the start of
chunk c's step, so their latency overlaps chunk c's dots (the preps hold the lowest tickets and run all chunks at
once from the start, so the next chunk's flag is usually set already; the wait is on a program already running, as
before: no deadlock).

The arithmetic and its order are ``gdn_prefill_onelaunch``'s (the walk's values are the same, only loaded earlier;
the prep and output roles are that seed's own functions): outputs equal that seed's bit for bit. The cost is
registers: the next chunk's tiles are held (as loaded, bf16 scratch) beside the current ones, on a kernel that
already spills at 4 warps (``benchmarks/results/prefill_onelaunch_resources_triton360.md``), so 8 warps is in the
space. No ``WALK_FIRST`` (walks-first lost everywhere in call JA). ``num_stages`` stays 1: Triton's own pipelining
could move a chunk's loads above its wait.
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import torch
import triton
import triton.language as tl

from .chunk_slots import first_slot
from .gdn_prefill_args import HEAD, NUM_QK_HEADS, NUM_V_HEADS, prefill_args
from .onelaunch import _INTERPRET, _SYNCS, _output, _prep, _release, _wait, sync_for  # noqa: F401 - _SYNCS: the counters (tests)
from .wy3b import _dot, _rne, _stored, low_flags, scratch_dtype

PARAMS = {"C": 64, "BV": 64, "BV_O": 64, "num_warps": 4, "INTER": "bf16", "STATES": "bf16", "PRECISION": "tf32", "SLEEP_NS": 0}  # kernelopt:params

SEED = "gdn_prefill_onelaunch_pf"


@triton.jit
def _chunk_inputs(k_ptr, w_ptr, u_ptr, g_ptr, prep_flag_ptr, epoch, c0, eos, slot, i_hqk, i_hv, offs_k, offs_v,
                  offs_c, HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, SLEEP_NS: tl.constexpr):
    """The walk's loads of the chunk starting at token ``c0`` (slot ``slot``) as stored (k bf16, W / U as scratch,
    gamma fp32), after its prep flag; all masked off (no wait) when ``c0`` is past the sequence."""
    if c0 < eos:
        _wait(prep_flag_ptr + slot * HV + i_hv, epoch, SLEEP_NS)
    t = c0 + offs_c
    valid = t < eos
    k = tl.load(k_ptr + ((t * HQK + i_hqk) * D)[:, None] + offs_k[None, :], mask=valid[:, None], other=0.0)
    hv_rows = (t * HV + i_hv) * D
    w = tl.load(w_ptr + hv_rows[:, None] + offs_k[None, :], mask=valid[:, None], other=0.0, cache_modifier=".cg")
    u = tl.load(u_ptr + hv_rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0, cache_modifier=".cg")
    g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0, cache_modifier=".cg")
    return k, w, u, g_raw


@triton.jit
def _walk_ahead(k_ptr, w_ptr, u_ptr, g_ptr, state_ptr, cu_ptr, h_ptr, vnew_ptr, new_state_ptr, prep_flag_ptr,
                h_flag_ptr, epoch, i_s, i_hv, i_vt, HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr,
                BV: tl.constexpr, C: tl.constexpr, PRECISION: tl.constexpr, HAS_STATE: tl.constexpr,
                LOW: tl.constexpr, UPCAST: tl.constexpr, SLEEP_NS: tl.constexpr):
    """``gdn_prefill_onelaunch``'s state walk (sequence ``i_s``, v-head ``i_hv``, columns ``[i_vt BV, +BV)``) with
    chunk c + 1's wait and loads issued before chunk c's dots."""
    i_hqk = i_hv // (HV // HQK)
    slot0 = first_slot(cu_ptr, i_s, C)
    bos = tl.load(cu_ptr + i_s).to(tl.int64)
    eos = tl.load(cu_ptr + i_s + 1).to(tl.int64)
    offs_k = tl.arange(0, D)
    offs_v = i_vt * BV + tl.arange(0, BV)
    offs_c = tl.arange(0, C)
    tile = (i_s.to(tl.int64) * HV + i_hv) * D * D + offs_k[:, None] + offs_v[None, :] * D  # S[k, v] = state[s,h,v,k]
    if HAS_STATE:
        s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([D, BV], dtype=tl.float32)
    h_tile = offs_k[:, None] * D + offs_v[None, :]  # h[slot, head, k, v]
    k_raw, w_raw, u_raw, g_raw = _chunk_inputs(k_ptr, w_ptr, u_ptr, g_ptr, prep_flag_ptr, epoch, bos, eos, slot0,
                                               i_hqk, i_hv, offs_k, offs_v, offs_c, HQK, HV, D, SLEEP_NS)
    for c0 in range(bos, eos, C):
        slot = slot0 + (c0 - bos) // C
        tl.store(h_ptr + (slot * HV + i_hv) * D * D + h_tile, s)
        nk, nw, nu, ng = _chunk_inputs(k_ptr, w_ptr, u_ptr, g_ptr, prep_flag_ptr, epoch, c0 + C, eos, slot + 1,
                                       i_hqk, i_hv, offs_k, offs_v, offs_c, HQK, HV, D, SLEEP_NS)
        t = c0 + offs_c
        valid = t < eos
        hv_rows = (t * HV + i_hv) * D
        k = k_raw.to(tl.float32)
        w = _stored(w_raw, LOW, UPCAST)
        u = _stored(u_raw, LOW, UPCAST)
        gamma_last = tl.min(g_raw, axis=0)  # gamma is non-increasing: the last valid token's
        gamma = tl.where(valid, g_raw, gamma_last)
        v_new = u - _dot(w, s, PRECISION, LOW, UPCAST)
        if LOW:  # the state update uses V_new as stored (the output reads the same values)
            if UPCAST:
                v_new = _rne(v_new)
            else:
                v_new = v_new.to(tl.bfloat16).to(tl.float32)
        tl.store(vnew_ptr + hv_rows[:, None] + offs_v[None, :], v_new, mask=valid[:, None])
        _release(h_flag_ptr + (slot * HV + i_hv) * (D // BV) + i_vt, epoch)
        k_decayed = k * tl.exp(gamma_last - gamma)[:, None]
        s = tl.exp(gamma_last) * s + _dot(tl.trans(k_decayed), v_new, PRECISION, LOW, UPCAST)
        k_raw, w_raw, u_raw, g_raw = nk, nw, nu, ng
    tl.store(new_state_ptr + tile, tl.where(eos > bos, s, 0.0))  # an empty sequence's state stays zero


@triton.jit(do_not_specialize=["epoch"])
def _onelaunch_ahead_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, cu_ptr,
    w_ptr, u_ptr, g_ptr, h_ptr, vnew_ptr, out_ptr, new_state_ptr, sync_ptr, prep_flag_ptr, claim_ptr, h_flag_ptr,
    scale, n_seq, n_slots, epoch,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, C: tl.constexpr, LOG2C: tl.constexpr,
    BV: tl.constexpr, BV_O: tl.constexpr, PRECISION: tl.constexpr, HAS_STATE: tl.constexpr,
    LOW: tl.constexpr, UPCAST: tl.constexpr, LOW_H: tl.constexpr, SLEEP_NS: tl.constexpr,
):
    """``gdn_prefill_onelaunch``'s ticket order with preps first: tickets [0, P) prep, [P, P + W) walk (ahead), the
    rest output; the last program to finish resets the counters."""
    n_prep = n_slots * HV
    n_walk = n_seq * HV * (D // BV)
    total = n_prep + n_walk + n_slots * HV * (D // BV_O)
    ticket = tl.atomic_add(sync_ptr, 1, sem="relaxed")
    if ticket < n_prep:
        _prep(k_ptr, v_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, cu_ptr, w_ptr, u_ptr, g_ptr, prep_flag_ptr,
              claim_ptr, n_seq, epoch, ticket // HV, ticket % HV, HQK, HV, D, C, LOG2C, PRECISION)
    elif ticket < n_prep + n_walk:
        i = ticket - n_prep
        i_sh = i // (D // BV)
        _walk_ahead(k_ptr, w_ptr, u_ptr, g_ptr, state_ptr, cu_ptr, h_ptr, vnew_ptr, new_state_ptr, prep_flag_ptr,
                    h_flag_ptr, epoch, i_sh // HV, i_sh % HV, i % (D // BV), HQK, HV, D, BV, C, PRECISION, HAS_STATE,
                    LOW, UPCAST, SLEEP_NS)
    else:
        i = ticket - n_prep - n_walk
        i_sh = i // (D // BV_O)
        _output(q_ptr, k_ptr, vnew_ptr, g_ptr, h_ptr, cu_ptr, out_ptr, h_flag_ptr, scale, n_seq, epoch, i_sh // HV,
                i_sh % HV, i % (D // BV_O), HQK, HV, D, BV, BV_O, C, PRECISION, LOW, UPCAST, LOW_H, SLEEP_NS)
    tl.debug_barrier()
    if tl.atomic_add(sync_ptr + 1, 1, sem="acq_rel") == total - 1:  # the last to finish: counters back to zero
        tl.atomic_xchg(sync_ptr, 0)
        tl.atomic_xchg(sync_ptr + 1, 0)


def check_params() -> tuple[int, int, int]:
    """``(C, BV, BV_O)`` from PARAMS, or a ValueError naming the bad one."""
    chunk, bv, bv_o = int(PARAMS["C"]), int(PARAMS["BV"]), int(PARAMS["BV_O"])
    for name, width in (("BV", bv), ("BV_O", bv_o)):
        if HEAD % width != 0 or width < 16:
            raise ValueError(f"{SEED}: {name}={width} must divide {HEAD} and be >= 16 (tl.dot)")
    if chunk not in (32, 64):
        raise ValueError(f"{SEED}: C={chunk} must be 32 or 64 (the prep's halves are tl.dot operands of C/2 rows)")
    for name in ("INTER", "STATES"):
        if PARAMS[name] not in ("bf16", "fp32"):
            raise ValueError(f"{SEED}: {name}={PARAMS[name]!r} must be 'bf16' or 'fp32'")
    return chunk, bv, bv_o


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32)."""
    chunk, bv, bv_o = check_params()
    x = prefill_args(SEED, q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)
    n_tok, n_seq, q, k, state, cu_seqlens = x["n_tok"], x["n_seq"], x["q"], x["k"], x["state"], x["cu_seqlens"]
    if n_seq == 0:
        return
    if n_tok == 0:  # only empty sequences: zero states, as in the reference (and no null q/k/v pointers)
        new_state.zero_()
        return
    dev = q.device
    dtype, h_dtype = (scratch_dtype(str(PARAMS[n])) for n in ("INTER", "STATES"))
    w = torch.empty((n_tok, NUM_V_HEADS, HEAD), dtype=dtype, device=dev)
    u, v_new = torch.empty_like(w), torch.empty_like(w)
    gamma = torch.empty((n_tok, NUM_V_HEADS), dtype=torch.float32, device=dev)
    slots = -(-n_tok // chunk) + n_seq  # >= sum over sequences of ceil(len / C); spare slots are never used
    h = torch.empty((slots, NUM_V_HEADS, HEAD, HEAD), dtype=h_dtype, device=dev)
    n_prep_flags = slots * NUM_V_HEADS
    counters, flags, epoch = sync_for(dev).take(n_prep_flags * (2 + HEAD // bv))
    programs = slots * NUM_V_HEADS + n_seq * NUM_V_HEADS * (HEAD // bv) + slots * NUM_V_HEADS * (HEAD // bv_o)
    _onelaunch_ahead_kernel[(programs,)](
        q, k, x["v"], state if state is not None else new_state, x["A_log"], x["a"], x["dt_bias"], x["b"], cu_seqlens,
        w, u, gamma, h, v_new, output, new_state, counters, flags[:n_prep_flags], flags[n_prep_flags:2 * n_prep_flags],
        flags[2 * n_prep_flags:],
        x["scale"], n_seq, slots, epoch,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, C=chunk, LOG2C=chunk.bit_length() - 1, BV=bv, BV_O=bv_o,
        PRECISION=str(PARAMS["PRECISION"]), HAS_STATE=state is not None, **low_flags(str(PARAMS["INTER"])),
        LOW_H=PARAMS["STATES"] == "bf16", SLEEP_NS=0 if _INTERPRET else int(PARAMS["SLEEP_NS"]),
        num_warps=int(PARAMS["num_warps"]), num_stages=1,
    )
