"""Gated Delta Net prefill: ``gdn_prefill_chunked_wy3h`` (WY prep with the chunk inverse by halves, state walk,
parallel output; bf16 scratch) with the output's inter-chunk term computed in the state walk, so the per-chunk states
``h`` never leave the chip.

Why: at 8,192 tokens in 20-57 sequences (2026-12-07 calls QH / QI on an H100; 52 % of the GDN prefill dispatch's
summed latency over the contest's workloads) wy3h's walk and output kernels run at 60-62 % of DRAM throughput and
move ~320 MB where the call needs ~95 MB: the walk stores every chunk's start state ``h[slot]`` ([128, 128] per chunk
and head: 82 MB of bf16 at C 32) and the output kernel reads them back, only to form ``exp(gamma) Q_c h[slot]``.
Here the walk forms that term itself for its V tile, from the state it holds in registers (the same bf16 or tf32 dot
the output kernel ran on the stored state), and stores it as fp32 ``[tokens, v-head, 128]`` (33.5 MB at 8,192 tokens,
whatever C); the output kernel adds it to its intra-chunk term: ``O = scale (O_inter + lower_incl(Q K^T decay)
V_new)``. Same operations on the same values in the same order as wy3h, so the same results (compared bit for bit in
the interpreter test); the walk does one more [C, 128] x [128, BV] dot a chunk and loads Q, off the state's serial
chain. ``STATES`` keeps its meaning for that dot: ``"bf16"`` rounds the state to bf16 as its operand (what storing
``h`` as bf16 did), ``"fp32"`` runs it at ``PRECISION``. The prep kernel (``PREP``) and W / U / V_new scratch are
wy3h's (``wy3h.py``, ``wy3b.py``: those seeds' ``kernel.py``; this seed imports their kernels and helpers only).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import os

import torch
import triton
import triton.language as tl

from .chunk_slots import chunk_of_slot
from .fastlaunch import fast
from .gdn_prefill_args import HEAD, NUM_QK_HEADS, NUM_V_HEADS, prefill_args
from .wy3b import _SCRATCH, _dot, _stored, low_flags, scratch_dtype
from .wy3h import PREPS, _prep_halves_kernel
from .wy3v import _prep_kernel

PARAMS = {"C": 64, "BV": 64, "BV_O": 64, "num_warps": 4, "num_warps_h": 4, "num_warps_o": 4, "num_stages": 1, "MAXNREG": 0, "INTER": "bf16", "STATES": "bf16", "PRECISION": "tf32", "PREP": "halves"}  # kernelopt:params

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"


@triton.jit
def _walk_kernel(
    q_ptr, k_ptr, w_ptr, u_ptr, g_ptr, state_ptr, cu_ptr, oi_ptr, vnew_ptr, new_state_ptr,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, C: tl.constexpr,
    PRECISION: tl.constexpr, HAS_STATE: tl.constexpr, LOW: tl.constexpr, UPCAST: tl.constexpr,
    LOW_H: tl.constexpr,
):
    """Per (sequence, v-head, V tile): walk the chunks storing O_inter = exp(gamma) Q S (S the chunk's start state;
    the dot in bf16 when LOW_H, else at PRECISION), V_new = U - W S, then S = exp(gamma_C) S + (K exp(gamma_C -
    gamma))^T V_new (S in fp32 registers; W, U, V_new in their buffers' dtype, O_inter fp32)."""
    pid_sh = tl.program_id(0)
    pid_v = tl.program_id(1)
    i_s = pid_sh // HV
    i_hv = pid_sh % HV
    i_hqk = i_hv // (HV // HQK)
    bos = tl.load(cu_ptr + i_s).to(tl.int64)
    eos = tl.load(cu_ptr + i_s + 1).to(tl.int64)
    offs_k = tl.arange(0, D)
    offs_v = pid_v * BV + tl.arange(0, BV)
    offs_c = tl.arange(0, C)
    tile = pid_sh.to(tl.int64) * D * D + offs_k[:, None] + offs_v[None, :] * D  # S[k, v] = state[s, h, v, k]
    if HAS_STATE:
        s = tl.load(state_ptr + tile).to(tl.float32)
    else:
        s = tl.zeros([D, BV], dtype=tl.float32)
    for c0 in range(bos, eos, C):
        t = c0 + offs_c
        valid = t < eos
        qk_rows = ((t * HQK + i_hqk) * D)[:, None] + offs_k[None, :]
        k = tl.load(k_ptr + qk_rows, mask=valid[:, None], other=0.0).to(tl.float32)
        hv_rows = (t * HV + i_hv) * D
        w = _stored(tl.load(w_ptr + hv_rows[:, None] + offs_k[None, :], mask=valid[:, None], other=0.0), LOW, UPCAST)
        u = _stored(tl.load(u_ptr + hv_rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0), LOW, UPCAST)
        g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0)
        gamma_last = tl.min(g_raw, axis=0)  # gamma is non-increasing: the last valid token's
        gamma = tl.where(valid, g_raw, gamma_last)
        # the output's inter-chunk term, from the start state in registers (wy3h: stored as h[slot], read back)
        q = tl.load(q_ptr + qk_rows, mask=valid[:, None], other=0.0)
        if UPCAST or not LOW_H:  # a bf16 dot on a GPU takes q as loaded (bf16): half the registers of an fp32 copy
            q = q.to(tl.float32)
        o_inter = tl.exp(gamma)[:, None] * _dot(q, _stored(s, LOW_H, UPCAST), PRECISION, LOW_H, UPCAST)
        tl.store(oi_ptr + hv_rows[:, None] + offs_v[None, :], o_inter, mask=valid[:, None])
        v_new = u - _dot(w, s, PRECISION, LOW, UPCAST)
        if LOW:  # the state update uses V_new as stored (the output kernel reads the same values)
            if UPCAST:
                v_new = _stored(v_new, LOW, UPCAST)
            else:
                v_new = v_new.to(tl.bfloat16).to(tl.float32)
        tl.store(vnew_ptr + hv_rows[:, None] + offs_v[None, :], v_new, mask=valid[:, None])
        k_decayed = k * tl.exp(gamma_last - gamma)[:, None]
        s = tl.exp(gamma_last) * s + _dot(tl.trans(k_decayed), v_new, PRECISION, LOW, UPCAST)
    tl.store(new_state_ptr + tile, tl.where(eos > bos, s, 0.0))  # an empty sequence's state stays zero


@triton.jit
def _out_kernel(
    q_ptr, k_ptr, vnew_ptr, g_ptr, oi_ptr, cu_ptr, out_ptr, scale, n_seq,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, C: tl.constexpr,
    PRECISION: tl.constexpr, LOW: tl.constexpr, UPCAST: tl.constexpr,
):
    """Per (chunk slot, v-head, V tile): O = scale (O_inter + lower_incl(Q K^T decay) V_new)."""
    pid = tl.program_id(0)
    i_hv = tl.program_id(1)
    pid_v = tl.program_id(2)
    i_hqk = i_hv // (HV // HQK)
    c0, eos, found = chunk_of_slot(cu_ptr, n_seq, pid, C)
    if found:
        offs_k = tl.arange(0, D)
        offs_v = pid_v * BV + tl.arange(0, BV)
        offs_c = tl.arange(0, C)
        t = c0 + offs_c
        valid = t < eos
        qk_rows = ((t * HQK + i_hqk) * D)[:, None] + offs_k[None, :]
        q = tl.load(q_ptr + qk_rows, mask=valid[:, None], other=0.0).to(tl.float32)
        k = tl.load(k_ptr + qk_rows, mask=valid[:, None], other=0.0).to(tl.float32)
        hv_rows = (t * HV + i_hv) * D
        tile = hv_rows[:, None] + offs_v[None, :]
        v_new = _stored(tl.load(vnew_ptr + tile, mask=valid[:, None], other=0.0), LOW, UPCAST)
        o_inter = tl.load(oi_ptr + tile, mask=valid[:, None], other=0.0)
        g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0)
        gamma = tl.where(valid, g_raw, tl.min(g_raw, axis=0))
        decay = tl.exp(tl.where(offs_c[:, None] >= offs_c[None, :], gamma[:, None] - gamma[None, :], float("-inf")))
        qk = _dot(q, tl.trans(k), PRECISION, LOW, UPCAST) * decay
        o = scale * (o_inter + _dot(qk, v_new, PRECISION, LOW, UPCAST))
        tl.store(out_ptr + tile, o.to(out_ptr.dtype.element_ty), mask=valid[:, None])


_PREPS = {"full": fast(_prep_kernel), "halves": fast(_prep_halves_kernel)}
_WALK, _OUT = fast(_walk_kernel), fast(_out_kernel)


def _options(warps: str, cap: str = "") -> dict:
    """One kernel's launch options from PARAMS (the interpreter takes no register cap)."""
    out = {"num_warps": int(PARAMS[warps]), "num_stages": int(PARAMS["num_stages"])}
    if cap and int(PARAMS[cap]) > 0 and not _INTERPRET:
        out["maxnreg"] = int(PARAMS[cap])
    return out


def _check_params() -> None:
    """The refusals of wy3b and wy3h (a point outside the space reaching ``run`` directly)."""
    chunk = int(PARAMS["C"])
    for name in ("BV", "BV_O"):
        width = int(PARAMS[name])
        if HEAD % width != 0 or width < 16:
            raise ValueError(f"gdn_prefill_chunked_wy3o: {name}={width} must divide {HEAD} and be >= 16 (tl.dot)")
    if chunk < 16 or chunk & (chunk - 1):
        raise ValueError(f"gdn_prefill_chunked_wy3o: C={chunk} must be a power of two >= 16")
    for name in ("INTER", "STATES"):
        if PARAMS[name] not in _SCRATCH:
            raise ValueError(f"gdn_prefill_chunked_wy3o: {name}={PARAMS[name]!r} must be one of {sorted(_SCRATCH)}")
    if PARAMS["PREP"] not in PREPS:
        raise ValueError(f"gdn_prefill_chunked_wy3o: PREP={PARAMS['PREP']!r} must be one of {list(PREPS)}")
    if PARAMS["PREP"] == "halves" and chunk < 32:
        raise ValueError(f"gdn_prefill_chunked_wy3o: PREP='halves' needs C >= 32 (a half of C={chunk} rows is under "
                         "tl.dot's 16)")


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32)."""
    _check_params()
    chunk, bv, bv_o, inter = int(PARAMS["C"]), int(PARAMS["BV"]), int(PARAMS["BV_O"]), str(PARAMS["INTER"])
    x = prefill_args("gdn_prefill_chunked_wy3o", q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output,
                     new_state)
    n_tok, n_seq, q, k, state, cu_seqlens = x["n_tok"], x["n_seq"], x["q"], x["k"], x["state"], x["cu_seqlens"]
    if n_seq == 0:
        return
    if n_tok == 0:  # only empty sequences: zero states, as in the reference (and no null q/k/v pointers)
        new_state.zero_()
        return
    dev, precision = q.device, str(PARAMS["PRECISION"])
    low = low_flags(inter)
    w = torch.empty((n_tok, NUM_V_HEADS, HEAD), dtype=scratch_dtype(inter), device=dev)
    u, v_new = torch.empty_like(w), torch.empty_like(w)
    o_inter = torch.empty((n_tok, NUM_V_HEADS, HEAD), dtype=torch.float32, device=dev)
    gamma = torch.empty((n_tok, NUM_V_HEADS), dtype=torch.float32, device=dev)
    slots = -(-n_tok // chunk) + n_seq  # >= sum over sequences of ceil(len / C); spare slots find no chunk
    meta = {"HQK": NUM_QK_HEADS, "HV": NUM_V_HEADS, "D": HEAD, "C": chunk, "PRECISION": precision}
    _PREPS[str(PARAMS["PREP"])][(slots, NUM_V_HEADS)](
        k, x["v"], x["A_log"], x["a"], x["dt_bias"], x["b"], cu_seqlens, w, u, gamma, n_seq,
        LOG2C=chunk.bit_length() - 1, **meta, **_options("num_warps", "MAXNREG"))
    _WALK[(n_seq * NUM_V_HEADS, HEAD // bv)](
        q, k, w, u, gamma, state if state is not None else new_state, cu_seqlens, o_inter, v_new, new_state, BV=bv,
        HAS_STATE=state is not None, LOW_H=PARAMS["STATES"] == "bf16", **meta, **low, **_options("num_warps_h"))
    _OUT[(slots, NUM_V_HEADS, HEAD // bv_o)](q, k, v_new, gamma, o_inter, cu_seqlens, output, x["scale"], n_seq,
                                            BV=bv_o, **meta, **low, **_options("num_warps_o"))
