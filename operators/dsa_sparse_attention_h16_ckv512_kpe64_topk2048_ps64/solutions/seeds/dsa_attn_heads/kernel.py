"""DSA sparse MLA attention: the ``dsa_attn_bf16`` seed (``bf16.py``, over the split-K seed ``base.py``) with its
one-launch split merge spread over all of a token's split programs, one part each, behind a per-token barrier.

Why. ``dsa_attn_bf16`` merges in one launch (``COMBINE="fused"``): the token's last split program to finish reads
all 16 splits x 16 heads x 512 fp32 partials (512 KB) and merges them, one split at a time (16 dependent 32 KB
loads from L2). Profiled on the H200 at 8 tokens (call BP, ``profile_attn_bf16_t8_bp.json`` vs
``profile_attn_bf16_t8_launch_bp.json``): that launch takes 21.4 us (torch.profiler) where the same split kernel
without the merge takes 10.1 us and the merge as its own launch (128 programs, one head each) 2.8 us - but as two
launches the host's second launch leaves a 7.1 us gap inside the official span. Here, ``MERGE="heads"``:

    every split program stores its partial (as dsa_attn_bf16), counts itself arrived on the token's counter,
    waits until all NUM_SPLITS programs of the token have arrived (acquire; a CTA barrier before the release
    makes the whole program's stores visible), then merges its part of the token's output over the splits
    (with S <= 16 splits the heads [s * 16/S, (s + 1) * 16/S); with more, a slice of 512 * 16/S columns of head
    s // (S/16): more splits can then fill the GPU at 1-2 tokens), one [S, columns] load per head; counts itself
    departed; the last to depart (count 2S - 1) resets the counter to 0 for the next call.

A spin barrier needs every program of a token resident at once: the split launch is cooperative
(``launch_cooperative_grid``, ``COOP=1``: CUDA refuses a grid that cannot be co-resident instead of hanging), and it
is used only while tokens x NUM_SPLITS <= the SM count and the merge divides evenly (above); otherwise the call is
``dsa_attn_bf16``'s (the last split program merges every head; ``COMBINE="launch"``: a second launch). The Triton
CPU interpreter runs programs one after another (a barrier there would never open): under ``TRITON_INTERPRET=1``
``MERGE="heads"`` runs the same merge parts as a second launch of (tokens, NUM_SPLITS) programs, so the CPU
tests check the split and the merge parts, the GPU tests the barrier.
Entry point: ``run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse)`` (DPS).
"""

import functools
import os

import torch
import triton
import triton.language as tl

from . import base as _base
from . import bf16 as _bf16

_INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"

PARAMS = {"BK": 64, "NUM_SPLITS": 16, "num_warps": 8, "num_stages": 2, "COMBINE": "fused", "MERGE": "heads", "COOP": 1}  # kernelopt:params


@triton.jit
def _merge_part(o_part_ptr, lse_part_ptr, out_ptr, lse_ptr, t64, part,
                H: tl.constexpr, DC: tl.constexpr, NUM_SPLITS: tl.constexpr):
    """Part ``part`` (0 .. NUM_SPLITS - 1) of token ``t64``'s merge over the splits: with NUM_SPLITS <= H, the
    H / NUM_SPLITS heads from ``part * H / NUM_SPLITS``, whole; with more splits than heads, head
    ``part // (NUM_SPLITS / H)``'s columns ``[c0, c0 + DC * H / NUM_SPLITS)`` (its lse written by the part holding
    column 0). One [NUM_SPLITS, columns] load per head: ``M = max lse_s``, ``w_s = 2^(lse_s - M)``,
    ``out = sum w_s O_s / sum w_s``, ``lse = M + log2(sum w_s)``."""
    HPS: tl.constexpr = H // NUM_SPLITS if NUM_SPLITS <= H else 1  # heads per part
    PPH: tl.constexpr = NUM_SPLITS // H if NUM_SPLITS > H else 1  # parts per head
    COLS: tl.constexpr = DC // PPH
    h0 = part * HPS // PPH
    c0 = (part % PPH) * COLS
    offs_c = c0 + tl.arange(0, COLS)
    offs_s = tl.arange(0, NUM_SPLITS)
    for i in tl.static_range(HPS):
        h = h0 + i
        rows = t64 * NUM_SPLITS * H + offs_s * H + h  # scratch rows (split s, head h)
        lse_s = tl.load(lse_part_ptr + rows, cache_modifier=".cg")
        o_s = tl.load(o_part_ptr + rows[:, None] * DC + offs_c[None, :], cache_modifier=".cg")  # [S, COLS] fp32
        m = tl.max(lse_s, axis=0)
        m_safe = tl.where(m == float("-inf"), 0.0, m)
        w = tl.exp2(lse_s - m_safe)  # empty splits (lse -inf) weigh 0
        w_sum = tl.sum(w, axis=0)
        acc = tl.sum(w[:, None] * o_s, axis=0)
        has = w_sum > 0.0
        out = acc / tl.where(has, w_sum, 1.0)
        dst = t64 * H + h
        tl.store(out_ptr + dst * DC + offs_c, out.to(out_ptr.dtype.element_ty))
        if c0 == 0:
            tl.store(lse_ptr + dst, tl.where(has, m + tl.log2(tl.where(has, w_sum, 1.0)), float("-inf")))


@triton.jit
def _dsa_split_heads_kernel(
    q_nope_ptr, q_pe_ptr, ckv_ptr, kpe_ptr, idx_ptr, o_ptr, lse_ptr, qk_scale,
    stride_ckv_p, stride_ckv_o, stride_kpe_p, stride_kpe_o,
    count_ptr, out_ptr, out_lse_ptr,  # per-token counters (zero between calls), final output and lse
    H: tl.constexpr, DC: tl.constexpr, DP: tl.constexpr, PAGE: tl.constexpr, TOPK: tl.constexpr,
    BK: tl.constexpr, NUM_SPLITS: tl.constexpr,
):
    """``dsa_attn_bf16``'s split (its partial stored), then the per-token barrier and this program's heads' merge."""
    _bf16._dsa_split_bf16_kernel(q_nope_ptr, q_pe_ptr, ckv_ptr, kpe_ptr, idx_ptr, o_ptr, lse_ptr, qk_scale,
                                 stride_ckv_p, stride_ckv_o, stride_kpe_p, stride_kpe_o,
                                 count_ptr, out_ptr, out_lse_ptr, H, DC, DP, PAGE, TOPK, BK, NUM_SPLITS, False)
    pid_t = tl.program_id(0)
    count = count_ptr + pid_t
    tl.debug_barrier()  # every thread's partial stores precede the release below
    tl.atomic_add(count, 1, sem="release")
    while tl.atomic_add(count, 0, sem="acquire") < NUM_SPLITS:
        pass
    _merge_part(o_ptr, lse_ptr, out_ptr, out_lse_ptr, pid_t.to(tl.int64), tl.program_id(1), H, DC, NUM_SPLITS)
    tl.debug_barrier()
    if tl.atomic_add(count, 1, sem="acq_rel") == 2 * NUM_SPLITS - 1:  # the last to leave: reset for the next call
        tl.atomic_xchg(count, 0)


@triton.jit
def _merge_heads_kernel(o_part_ptr, lse_part_ptr, out_ptr, lse_ptr,
                        H: tl.constexpr, DC: tl.constexpr, NUM_SPLITS: tl.constexpr):
    """The interpreter's stand-in for the barrier: program (t, s) merges the part split program (t, s) would."""
    _merge_part(o_part_ptr, lse_part_ptr, out_ptr, lse_ptr, tl.program_id(0).to(tl.int64), tl.program_id(1), H, DC,
                NUM_SPLITS)


@functools.lru_cache(maxsize=None)
def _sm_count(device: torch.device) -> int:
    return torch.cuda.get_device_properties(device).multi_processor_count


def _barrier_fits(t: int, splits: int, device: torch.device) -> bool:
    """May ``t`` tokens x ``splits`` programs wait on each other: every program resident at once (one per SM at
    most), and the merge dividing evenly among a token's splits (the splits divide the 16 heads, or the heads
    divide the splits and each part keeps at least 16 of a head's 512 columns)."""
    h = _base.NUM_HEADS
    if splits < 2 or (h % splits != 0 and (splits % h != 0 or splits // h > _base.D_CKV // 16)):
        return False
    return _INTERPRET or (device.type == "cuda" and t * splits <= _sm_count(device))


class _SplitLaunch:
    """Stands for ``base._dsa_split_kernel`` in this package's base module: ``base.run`` (argument checks, scratch,
    counters) launches through it; a fused call with ``MERGE="heads"`` that fits goes to the barrier kernel."""

    def __getitem__(self, grid: tuple[int, int]):
        return functools.partial(_launch_split, grid)


def _launch_split(grid, *args, FUSED: bool, num_warps: int, num_stages: int, **shape) -> None:
    t, splits = grid
    if PARAMS["MERGE"] not in ("heads", "last"):
        raise ValueError(f"dsa_attn_heads: MERGE={PARAMS['MERGE']!r} must be 'heads' or 'last'")
    if not (FUSED and PARAMS["MERGE"] == "heads" and _barrier_fits(t, splits, args[0].device)):
        _bf16._dsa_split_bf16_kernel[grid](*args, FUSED=FUSED, num_warps=num_warps, num_stages=num_stages, **shape)
        return
    if _INTERPRET:
        _bf16._dsa_split_bf16_kernel[grid](*args, FUSED=False, num_warps=num_warps, num_stages=num_stages, **shape)
        o_part, lse_part, out, out_lse = args[5], args[6], args[13], args[14]
        _merge_heads_kernel[grid](o_part, lse_part, out, out_lse, H=shape["H"], DC=shape["DC"], NUM_SPLITS=splits)
        return
    _dsa_split_heads_kernel[grid](*args, num_warps=num_warps, num_stages=num_stages,
                                  launch_cooperative_grid=bool(int(PARAMS["COOP"])), **shape)


# this package's own copies of the base and bf16 modules: their seeds' packages (and traces' hashes) are untouched
_base.PARAMS = PARAMS
_base._dsa_split_kernel = _SplitLaunch()


def run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse) -> None:
    """Write ``output`` ([T,16,512] bf16) and the base-2 ``lse`` ([T,16] fp32), as the base seed."""
    _base.run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse)
