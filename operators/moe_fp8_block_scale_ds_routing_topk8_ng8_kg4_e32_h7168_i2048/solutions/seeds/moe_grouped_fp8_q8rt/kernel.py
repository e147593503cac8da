"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8`` seed (``q8.py``, over ``base.py``) with its routing
and its tile table in one launch.

Why. The official span of a 32-59-token call of the retained q8 dispatch (H200, 2026-12-02 call BP,
``benchmarks/results/span_anatomy_h200_moe_bp.md``: the timer's own CUPTI records) is 360-412 us with 10.5-11.7 %
idle, and the idle time sits in two gaps: 20.6-22.0 us before the one-program tile-table kernel and 18.0-18.2 us
before GEMM1. The routing kernel takes 5.5 us and the tile table 8.5 us, less than the host's time to issue the
next launch, so the GPU waits for the host twice before the GEMMs start. Here, while the tile table fits one
program (``TILES_MAX_PAIRS`` routed pairs, up to 128 tokens), ``_route_tiles_kernel`` is one launch of one program
per token: each routes its token (``base._route_kernel``, unchanged), counts itself done on a counter (an acq_rel
atomic after a CTA barrier: its routing stores are visible to whoever reads the count after it), and the last
token's program builds the tile table (``base._tile_table_kernel``, unchanged, as a device function) and resets the
counter to 0 for the next call. One gap instead of two before GEMM1; the GEMMs and the combine are q8's.

``FUSE_TILES=0`` is q8's two launches. Longer calls (more than ``TILES_MAX_PAIRS`` pairs) keep q8's path: routing
launch, then the torch tile table. The fused launch goes through ``fastlaunch.py`` with ``LAUNCH="fast"`` as q8's
launches do. This package's ``q8`` module launches through the table below (its ``route`` entry holds the routing
launch back until the ``tiles`` entry can issue both as one), so q8's entry point, checks and buffers are reused
as they are.
"""

import functools

import torch
import triton
import triton.language as tl

from . import q8 as _q8
from .base import TILES_MAX_PAIRS, TOP_K, _route_kernel, _tile_table_kernel
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1}  # kernelopt:params


@triton.jit
def _route_tiles_kernel(logits_ptr, bias_ptr, idx_ptr, w_ptr, scale, count_ptr,
                        order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                        E: tl.constexpr, NG: tl.constexpr, KG: tl.constexpr, TOPK: tl.constexpr,
                        BLOCK_M: tl.constexpr, NUM_LOCAL_C: tl.constexpr, P_PAD: tl.constexpr,
                        NT_PAD: tl.constexpr):
    """Token ``program_id(0)``'s routing; the last token's program to finish builds the tile table."""
    _route_kernel(logits_ptr, bias_ptr, idx_ptr, w_ptr, scale, E, NG, KG, TOPK)
    tl.debug_barrier()  # every thread's routing stores precede the count
    if tl.atomic_add(count_ptr, 1, sem="acq_rel") == tl.num_programs(0) - 1:
        _tile_table_kernel(idx_ptr, order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                           BLOCK_M, NUM_LOCAL_C, P_PAD, NT_PAD)
        tl.atomic_xchg(count_ptr, 0)


#: Per-device counters of the fused launch (int32, zero between calls: the last program resets it). Allocated
#: (zeroed) once per device, at the first call; one call at a time per device (the harness times one solution at a
#: time per GPU).
_COUNTS: dict = {}


def _count(device: torch.device) -> torch.Tensor:
    buf = _COUNTS.get(device)
    if buf is None:
        buf = _COUNTS[device] = torch.zeros(1, dtype=torch.int32, device=device)
    return buf


class _Grid:
    """``launcher[grid](*args, **kw)`` syntax over a function ``fn(grid, *args, **kw)``."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __getitem__(self, grid):
        return functools.partial(self.fn, grid)


def _launch_table(kernels: dict, fused) -> dict:
    """q8's launch table (``route``, ``tiles``, ``gemm1``, ``gemm2``, ``combine``) with the routing and the tile
    table issued as one launch of ``fused`` when ``FUSE_TILES`` is on and the table fits one program."""
    held: dict = {}

    def route(grid, *args, **kw):
        if int(PARAMS["FUSE_TILES"]) and grid[0] * TOP_K <= TILES_MAX_PAIRS:
            held["route"] = (grid, args, kw)  # issued with the tile table's arguments, next
            return None
        return kernels["route"][grid](*args, **kw)

    def tiles(grid, *args, **kw):
        if "route" not in held:
            return kernels["tiles"][grid](*args, **kw)
        rgrid, rargs, rkw = held.pop("route")
        rkw = {k: v for k, v in rkw.items() if k != "num_warps"}
        # the routing's (logits, bias, ids, weights, scale), the counter, the table's arguments after its ids
        return fused[rgrid](*rargs, _count(rargs[0].device), *args[1:], **rkw, **kw)

    return {**kernels, "route": _Grid(route), "tiles": _Grid(tiles)}


# this package's own copy of the q8 module: its seed's package (and traces' hashes) is untouched
_q8.PARAMS = PARAMS
_q8._LAUNCHERS = {"jit": _launch_table(_q8._KERNELS, _route_tiles_kernel),
                  "fast": _launch_table({name: fast(fn) for name, fn in _q8._KERNELS.items()},
                                        fast(_route_tiles_kernel))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
