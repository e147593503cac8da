"""The GDN prefill definition's entry-point arguments, checked once for a solution of several kernels.

A solution carries this file in its sources (seed folders link it as ``gdn_prefill_args.py``); it imports torch
only. ``prefill_args(seed, ...)`` checks every shape of ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens,
scale, output, new_state)`` (4 q/k heads, 8 v heads, head size 128, k-last state) and returns the contiguous
inputs, the scale to use (``0`` or ``None``: 1/sqrt(128)) and the token and sequence counts; a wrong argument
is a ``ValueError`` naming the seed and the argument. The frozen seeds before it (recurrent, chunked, wy, wy3)
carry their own copies of these checks: their content hashes key measured traces.
"""

import math

import torch

NUM_QK_HEADS, NUM_V_HEADS, HEAD = 4, 8, 128


def _shaped(seed: str, name: str, t: torch.Tensor, shape: tuple, out: bool = False) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"{seed}: {name} has shape {tuple(t.shape)}, expected {shape}")
    if out and not t.is_contiguous():
        raise ValueError(f"{seed}: output tensor {name} must be contiguous")
    return t.contiguous()


def prefill_args(seed, q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> dict:
    """``{"q", "k", "v", "state", "A_log", "a", "dt_bias", "b", "cu_seqlens"}`` checked and contiguous (``state``
    may be ``None``), plus ``scale`` (float), ``n_tok`` and ``n_seq``."""
    if cu_seqlens.dim() != 1 or cu_seqlens.numel() < 1 or cu_seqlens.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"{seed}: cu_seqlens must be a non-empty 1-D int32/int64 tensor, "
                         f"got shape {tuple(cu_seqlens.shape)} dtype {cu_seqlens.dtype}")
    n_tok, n_seq = q.shape[0], cu_seqlens.numel() - 1
    qk, hv = (n_tok, NUM_QK_HEADS, HEAD), (n_tok, NUM_V_HEADS, HEAD)
    out = {"q": _shaped(seed, "q", q, qk), "k": _shaped(seed, "k", k, qk), "v": _shaped(seed, "v", v, hv),
           "a": _shaped(seed, "a", a, hv[:2]), "b": _shaped(seed, "b", b, hv[:2]),
           "A_log": _shaped(seed, "A_log", A_log, (NUM_V_HEADS,)),
           "dt_bias": _shaped(seed, "dt_bias", dt_bias, (NUM_V_HEADS,)),
           "state": None if state is None else _shaped(seed, "state", state, (n_seq, NUM_V_HEADS, HEAD, HEAD)),
           "cu_seqlens": cu_seqlens.contiguous()}
    _shaped(seed, "output", output, hv, out=True)
    _shaped(seed, "new_state", new_state, (n_seq, NUM_V_HEADS, HEAD, HEAD), out=True)
    scale = float(scale) if scale is not None else 0.0
    return {**out, "scale": scale if scale != 0.0 else 1.0 / math.sqrt(HEAD), "n_tok": n_tok, "n_seq": n_seq}
