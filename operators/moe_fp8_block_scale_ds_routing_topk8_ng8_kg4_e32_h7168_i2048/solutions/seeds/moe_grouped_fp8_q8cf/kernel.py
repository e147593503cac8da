"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8rg`` seed (``q8rg.py``, over ``q8rt.py``, ``q8.py`` and
``base.py``) with the short calls' weighted combine inside GEMM2's launch.

Why. q8rg's short calls are three launches: routing with GEMM1, GEMM2, the combine. On the H200 (2026-12-04 calls
DZ / EA, ``benchmarks/results/span_anatomy_h200_moe_short_dz*.md``) the 1-token call's kernels take 52.7 / 17.2 /
1.7 us in every process, but in some processes the GPU then waits 10-22 us for the host's combine launch (span 94-96
instead of 74 us, for most of a process's calls): the last launch is the one the GPU can catch up with. Here GEMM2's
programs combine: after storing its tile's rows of ``Y`` (q8's GEMM2, called as a device function), each program
counts, per row, one more finished pair of that row's token in its N block (a per-lane acq_rel atomic after a CTA
barrier on a count per (token, N block)); the row whose count reaches the token's number of local pairs is the
token's last, and its program sums the token's rows of ``Y`` in slot order (``rw * row``, as q8's combine kernel:
the same sums), with L2 loads (``.cg``: other multiprocessors wrote them), stores the bf16 output columns and resets
the count for the next call. A token never holds two rows of one tile (its slots are distinct experts), so the lanes
of one atomic never collide. Tokens routed to no local expert get their zero rows from tile 0's programs. The counts
(``T x H / BLOCK_N2`` int32, zeroed once, left at zero by every call) are kept per device and grow with T.

``FUSED_COMBINE_UPTO``: the largest call (tokens) whose combine is fused (0: never; q8rg's launches). Longer calls,
and every call under the Triton interpreter's sequential programs too (same code), otherwise run q8rg's.
"""

import os

import torch
import triton
import triton.language as tl

from . import q8rg as _rg
from .base import TOP_K, _tile_rows
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton", "FUSE_GEMM1": 1, "FUSED_COMBINE_UPTO": 16}  # kernelopt:params

_rt = _rg._rt
_q8 = _rg._q8
_gemm2 = _q8._gemm2_q8_kernel  # called below as a device function: program_id 0 / 1 are its tile and N block
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"


@triton.jit
def _gemm2_combine_kernel(h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, order_ptr, pos_ptr, rw_ptr, out_ptr,
                          cnt_ptr, T,
                          H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr,
                          NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, T_PAD: tl.constexpr, CACHE: tl.constexpr):
    """Program (tile, N block): q8's GEMM2 tile, then the combine of the tokens whose last pair this tile holds (see
    the module docstring); tile 0's programs also write the zero rows of tokens with no local pair."""
    NB: tl.constexpr = H // BLOCK_N
    pid_n = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    slots = tl.arange(0, TOPK)
    if tl.program_id(0) == 0:
        toks = tl.arange(0, T_PAD)
        live = toks < T
        ppos = tl.load(pos_ptr + toks[:, None] * TOPK + slots[None, :], mask=live[:, None], other=-1)
        nowhere = live & (tl.max(ppos, axis=1) < 0)
        tl.store(out_ptr + toks[:, None].to(tl.int64) * H + offs_n[None, :],
                 tl.zeros((T_PAD, BLOCK_N), dtype=out_ptr.dtype.element_ty), mask=nowhere[:, None])
    _gemm2(h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr, H, I, BLOCK_M, BLOCK_N, BLOCK_K, SCALE_K, NUM_STAGES,
           UPCAST)
    _expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows > 0:
        tl.debug_barrier()  # every thread's Y stores precede the counts
        tok = (tl.load(order_ptr + start + offs_m, mask=mask_m, other=0) // TOPK).to(tl.int64)
        mine = tl.load(pos_ptr + tok[:, None] * TOPK + slots[None, :], mask=mask_m[:, None], other=-1)
        need = tl.sum((mine >= 0).to(tl.int32), axis=1)  # the token's local pairs
        count = cnt_ptr + tok * NB + pid_n
        done = tl.atomic_add(count, 1, mask=mask_m, sem="acq_rel")
        last = mask_m & (done == need - 1)
        tl.atomic_xchg(count, 0, mask=last)
        tl.debug_barrier()  # the counts read before any thread loads the other programs' rows
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.static_range(TOPK):  # slot order, as q8's combine kernel
            p = tl.load(pos_ptr + tok * TOPK + k, mask=last, other=-1).to(tl.int64)
            w = tl.load(rw_ptr + tok * TOPK + k, mask=last, other=0.0)
            row = tl.load(y_ptr + tl.maximum(p, 0)[:, None] * H + offs_n[None, :], mask=(last & (p >= 0))[:, None],
                          other=0.0, cache_modifier=CACHE)
            acc += w[:, None] * row
        tl.store(out_ptr + tok[:, None] * H + offs_n[None, :], acc.to(out_ptr.dtype.element_ty), mask=last[:, None])


#: Per device: int32 counts per (token, N block), zero between calls, grown as calls need.
_COUNTS: dict = {}


def _counts(device: torch.device, n: int) -> torch.Tensor:
    """The device's counts, at least ``n`` of them (zero between calls)."""
    cnt = _COUNTS.get(device)
    if cnt is None or cnt.numel() < n:
        cnt = torch.zeros(n, dtype=torch.int32, device=device)
        _COUNTS[device] = cnt
    return cnt


def _launch_table(kernels: dict, fused) -> dict:
    """q8rg's launch table with, for calls up to ``FUSED_COMBINE_UPTO`` tokens, GEMM2 held back and issued with the
    combine's arguments (and GEMM1's row order) as one launch of ``fused``."""
    held: dict = {}

    def gemm1(grid, *args, **kw):  # args: activations, scales, W1, W1 scales, table, order, ...
        held.clear()
        held["order"] = args[5]
        return kernels["gemm1"][grid](*args, **kw)

    def gemm2(grid, *args, **kw):
        if "order" not in held:
            return kernels["gemm2"][grid](*args, **kw)
        held["gemm2"] = (grid, args, kw)
        return None

    def combine(grid, *args, **kw):  # args: Y, pos, routing weights, output
        t = grid[0]
        if "gemm2" not in held:
            return kernels["combine"][grid](*args, **kw)
        (g2, a2, kw2), order = held.pop("gemm2"), held.pop("order")
        if t > int(PARAMS["FUSED_COMBINE_UPTO"]):
            kernels["gemm2"][g2](*a2, **kw2)
            return kernels["combine"][grid](*args, **kw)
        y, pos, rw, out = args
        cnt = _counts(y.device, t * (kw2["H"] // kw2["BLOCK_N"]))
        return fused[g2](*a2, order, pos, rw, out, cnt, t, **kw2, TOPK=TOP_K,
                         T_PAD=max(triton.next_power_of_2(t), 2), CACHE="" if _INTERPRET else ".cg")

    return {**kernels, "gemm1": _rt._Grid(gemm1), "gemm2": _rt._Grid(gemm2), "combine": _rt._Grid(combine)}


# this package's own copies of q8rg / q8rt / q8: q8rg's launch tables with the combine fused into GEMM2
_rg.PARAMS = PARAMS
_rt.PARAMS = PARAMS
_q8.PARAMS = PARAMS
_q8._LAUNCHERS = {"jit": _launch_table(_q8._LAUNCHERS["jit"], _gemm2_combine_kernel),
                  "fast": _launch_table(_q8._LAUNCHERS["fast"], fast(_gemm2_combine_kernel))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
