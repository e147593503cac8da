"""Gated Delta Net prefill: wy3v's three kernels (WY prep, state walk, parallel output; chunk slots found 64
sequences a step) with the scratch between them and the dots after the prep in bf16 (``INTER="bf16"``), each
kernel with its own launch options (as ``gdn_prefill_chunked_wy3p``).

Why: on the H200 (2026-12-01 calls AX, BD-BE) wy3's state walk and output kernels are latency-bound (SM 12-24 %
busy, DRAM 8-28 %, 12.5 % occupancy at 162-255 registers a thread): the state walk's programs hold a [128, BV]
fp32 state and fp32 [C, 128] W tiles, and every chunk step waits on two tf32 dots. fla's kernels for the same
algorithm (bf16 W, U, V_new and per-chunk states ``h``; bf16 dots accumulating in fp32) take 190 us at 8,192
tokens against wy3's 550. Here, with ``INTER="bf16"``:

* the prep kernel (wy3v's, unchanged: its (I + A)^-1 squaring chain stays in tf32) stores W and U as bf16;
* the state walk keeps S in fp32 registers, stores ``h[slot]`` and V_new as bf16, and runs ``V_new = U - W S``
  and ``S = exp(gamma_C) S + (K exp(gamma_C - gamma))^T V_new`` as bf16 dots (S and V_new rounded to bf16 as
  operands) accumulating in fp32;
* the output kernel runs ``Q K^T`` and ``(Q K^T decay) V_new`` as bf16 dots.

``STATES`` is the dtype of the per-chunk states ``h`` (the largest scratch: 64 KiB per chunk and head in fp32):
with ``"bf16"`` (the default, fla's choice) they are stored as bf16 and the output kernel's ``Q h[slot]`` is a
bf16 dot too; ``"fp32"`` keeps that term, the output's inter-chunk part, at tf32. Scratch bytes halve and bf16
dots run at twice the tf32 rate with half the operand registers. Accuracy: fla's kernels, bf16 throughout, pass
all 100 contest workloads on the H200 (atol = rtol = 0.01); in the interpreter test (random inputs: unit k,
Gaussian q and v, states of 0.1) the output is within 0.0039 of the fp32 reference (its own bf16 rounding) and
the final state within 0.0035.
``INTER="fp32"`` with ``STATES="fp32"`` is wy3p's arithmetic (tf32 dots at ``PRECISION``, fp32 scratch). Under
the Triton interpreter bf16 dots are emulated: operands rounded to bf16 and multiplied in fp32 (the interpreter
computes bf16 arithmetic wrongly). The argument checks are ``gdn_prefill_args.py`` (shared); ``wy3v.py`` is that
seed's ``kernel.py`` (its prep kernel is used as is; ``wy3.py`` and ``base.py`` are what it imports).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import os

import torch
import triton
import triton.language as tl

from .chunk_slots import chunk_of_slot, first_slot
from .fastlaunch import fast
from .gdn_prefill_args import HEAD, NUM_QK_HEADS, NUM_V_HEADS, prefill_args
from .wy3v import _prep_kernel

PARAMS = {"C": 64, "BV": 64, "BV_O": 64, "num_warps": 8, "num_warps_h": 4, "num_warps_o": 4, "num_stages": 1, "MAXNREG": 0, "INTER": "bf16", "STATES": "bf16", "PRECISION": "tf32"}  # kernelopt:params

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"
_SCRATCH = {"bf16": torch.bfloat16, "fp32": torch.float32}


@triton.jit
def _rne(x):
    """fp32 ``x`` rounded to the nearest bf16 (ties to even), kept as fp32: what a GPU's fp32 -> bf16 conversion
    gives (the interpreter's conversion truncates instead, twice the error and biased)."""
    bits = x.to(tl.int32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & -65536
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def _stored(x, LOW: tl.constexpr, UPCAST: tl.constexpr):
    """A loaded scratch value as fp32. With LOW the scratch is bf16 on a GPU (rounded to nearest when stored);
    under the interpreter (UPCAST) the scratch stays fp32 and the rounding happens here instead."""
    if LOW and UPCAST:
        out = _rne(x.to(tl.float32))
    else:
        out = x.to(tl.float32)
    return out


@triton.jit
def _dot(a, b, PRECISION: tl.constexpr, LOW: tl.constexpr, UPCAST: tl.constexpr):
    """``a @ b`` accumulated in fp32: bf16 operands when LOW (under the interpreter: operands rounded to the
    nearest bf16, multiplied in fp32), else fp32 operands at ``PRECISION``."""
    if LOW:
        if UPCAST:
            out = tl.dot(_rne(a), _rne(b), input_precision="ieee")
        else:
            out = tl.dot(a.to(tl.bfloat16), b.to(tl.bfloat16))
    else:
        out = tl.dot(a, b, input_precision=PRECISION)
    return out


@triton.jit
def _h_kernel(
    k_ptr, w_ptr, u_ptr, g_ptr, state_ptr, cu_ptr, h_ptr, vnew_ptr, new_state_ptr,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, C: tl.constexpr,
    PRECISION: tl.constexpr, HAS_STATE: tl.constexpr, LOW: tl.constexpr, UPCAST: tl.constexpr,
):
    """Per (sequence, v-head, V tile): walk the chunks storing each start state h[slot], V_new = U - W S and
    S = exp(gamma_C) S + (K exp(gamma_C - gamma))^T V_new (S in fp32 registers; scratch in its buffers' dtype)."""
    pid_sh = tl.program_id(0)
    pid_v = tl.program_id(1)
    i_s = pid_sh // HV
    i_hv = pid_sh % HV
    i_hqk = i_hv // (HV // HQK)
    slot0 = first_slot(cu_ptr, i_s, C)
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
    h_tile = offs_k[:, None] * D + offs_v[None, :]  # h[slot, head, k, v]
    for c0 in range(bos, eos, C):
        tl.store(h_ptr + ((slot0 + (c0 - bos) // C) * HV + i_hv) * D * D + h_tile, s)
        t = c0 + offs_c
        valid = t < eos
        k = tl.load(k_ptr + ((t * HQK + i_hqk) * D)[:, None] + offs_k[None, :], mask=valid[:, None],
                    other=0.0).to(tl.float32)
        hv_rows = (t * HV + i_hv) * D
        w = _stored(tl.load(w_ptr + hv_rows[:, None] + offs_k[None, :], mask=valid[:, None], other=0.0), LOW, UPCAST)
        u = _stored(tl.load(u_ptr + hv_rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0), LOW, UPCAST)
        g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0)
        gamma_last = tl.min(g_raw, axis=0)  # gamma is non-increasing: the last valid token's
        gamma = tl.where(valid, g_raw, gamma_last)
        v_new = u - _dot(w, s, PRECISION, LOW, UPCAST)
        if LOW:  # the state update uses V_new as stored (the output kernel reads the same values)
            if UPCAST:
                v_new = _rne(v_new)
            else:
                v_new = v_new.to(tl.bfloat16).to(tl.float32)
        tl.store(vnew_ptr + hv_rows[:, None] + offs_v[None, :], v_new, mask=valid[:, None])
        k_decayed = k * tl.exp(gamma_last - gamma)[:, None]
        s = tl.exp(gamma_last) * s + _dot(tl.trans(k_decayed), v_new, PRECISION, LOW, UPCAST)
    tl.store(new_state_ptr + tile, tl.where(eos > bos, s, 0.0))  # an empty sequence's state stays zero


@triton.jit
def _o_kernel(
    q_ptr, k_ptr, vnew_ptr, g_ptr, h_ptr, cu_ptr, out_ptr, scale, n_seq,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, C: tl.constexpr,
    PRECISION: tl.constexpr, LOW: tl.constexpr, UPCAST: tl.constexpr, LOW_H: tl.constexpr,
):
    """Per (chunk slot, v-head, V tile): O = scale (exp(gamma) Q h[slot] + lower_incl(Q K^T decay) V_new); the
    Q h[slot] dot in bf16 when LOW_H (the states stored as bf16), else at PRECISION."""
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
        v_new = _stored(tl.load(vnew_ptr + hv_rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0), LOW,
                        UPCAST)
        s = _stored(tl.load(h_ptr + (pid.to(tl.int64) * HV + i_hv) * D * D + offs_k[:, None] * D + offs_v[None, :]),
                    LOW_H, UPCAST)
        g_raw = tl.load(g_ptr + t * HV + i_hv, mask=valid, other=0.0)
        gamma = tl.where(valid, g_raw, tl.min(g_raw, axis=0))
        decay = tl.exp(tl.where(offs_c[:, None] >= offs_c[None, :], gamma[:, None] - gamma[None, :], float("-inf")))
        qk = _dot(q, tl.trans(k), PRECISION, LOW, UPCAST) * decay
        o = scale * (tl.exp(gamma)[:, None] * _dot(q, s, PRECISION, LOW_H, UPCAST)
                     + _dot(qk, v_new, PRECISION, LOW, UPCAST))
        tl.store(out_ptr + hv_rows[:, None] + offs_v[None, :], o.to(out_ptr.dtype.element_ty), mask=valid[:, None])


_PREP, _H, _O = fast(_prep_kernel), fast(_h_kernel), fast(_o_kernel)


def scratch_dtype(kind: str) -> torch.dtype:
    """The buffer dtype of scratch stored as ``kind`` (``"bf16"``/``"fp32"``): under the interpreter always fp32,
    bf16 being emulated by rounding to nearest when read (``_stored``)."""
    return torch.float32 if _INTERPRET else _SCRATCH[kind]


def low_flags(kind: str) -> dict:
    """The state walk's and output kernel's ``LOW``/``UPCAST`` for W, U and V_new stored as ``kind``."""
    return {"LOW": kind == "bf16", "UPCAST": _INTERPRET}


def _options(warps: str, cap: str = "") -> dict:
    """One kernel's launch options from PARAMS (the interpreter takes no register cap)."""
    out = {"num_warps": int(PARAMS[warps]), "num_stages": int(PARAMS["num_stages"])}
    if cap and int(PARAMS[cap]) > 0 and not _INTERPRET:
        out["maxnreg"] = int(PARAMS[cap])
    return out


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32)."""
    chunk, bv, bv_o, inter = int(PARAMS["C"]), int(PARAMS["BV"]), int(PARAMS["BV_O"]), str(PARAMS["INTER"])
    for name, width in (("BV", bv), ("BV_O", bv_o)):
        if HEAD % width != 0 or width < 16:
            raise ValueError(f"gdn_prefill_chunked_wy3b: {name}={width} must divide {HEAD} and be >= 16 (tl.dot)")
    if chunk < 16 or chunk & (chunk - 1):
        raise ValueError(f"gdn_prefill_chunked_wy3b: C={chunk} must be a power of two >= 16")
    for name in ("INTER", "STATES"):
        if PARAMS[name] not in _SCRATCH:
            raise ValueError(f"gdn_prefill_chunked_wy3b: {name}={PARAMS[name]!r} must be one of {sorted(_SCRATCH)}")
    x = prefill_args("gdn_prefill_chunked_wy3b", q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output,
                     new_state)
    n_tok, n_seq, q, k, state, cu_seqlens = x["n_tok"], x["n_seq"], x["q"], x["k"], x["state"], x["cu_seqlens"]
    if n_seq == 0:
        return
    if n_tok == 0:  # only empty sequences: zero states, as in the reference (and no null q/k/v pointers)
        new_state.zero_()
        return
    # under the interpreter bf16 scratch is emulated in fp32 buffers, rounded to nearest when read (_stored)
    dev, precision = q.device, str(PARAMS["PRECISION"])
    dtype, h_dtype = (scratch_dtype(str(PARAMS[n])) for n in ("INTER", "STATES"))
    low = low_flags(inter)
    w = torch.empty((n_tok, NUM_V_HEADS, HEAD), dtype=dtype, device=dev)
    u, v_new = torch.empty_like(w), torch.empty_like(w)
    gamma = torch.empty((n_tok, NUM_V_HEADS), dtype=torch.float32, device=dev)
    slots = -(-n_tok // chunk) + n_seq  # >= sum over sequences of ceil(len / C); spare slots are never used
    h = torch.empty((slots, NUM_V_HEADS, HEAD, HEAD), dtype=h_dtype, device=dev)
    meta = {"HQK": NUM_QK_HEADS, "HV": NUM_V_HEADS, "D": HEAD, "C": chunk, "PRECISION": precision}
    _PREP[(slots, NUM_V_HEADS)](k, x["v"], x["A_log"], x["a"], x["dt_bias"], x["b"], cu_seqlens, w, u, gamma,
                                n_seq, LOG2C=chunk.bit_length() - 1, **meta, **_options("num_warps", "MAXNREG"))
    _H[(n_seq * NUM_V_HEADS, HEAD // bv)](k, w, u, gamma, state if state is not None else new_state, cu_seqlens, h,
                                          v_new, new_state, BV=bv, HAS_STATE=state is not None, **meta, **low,
                                          **_options("num_warps_h"))
    _O[(slots, NUM_V_HEADS, HEAD // bv_o)](q, k, v_new, gamma, h, cu_seqlens, output, x["scale"], n_seq, BV=bv_o,
                                           LOW_H=PARAMS["STATES"] == "bf16", **meta, **low,
                                           **_options("num_warps_o"))
