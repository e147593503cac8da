"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8rt`` seed (``q8rt.py``, over ``q8.py`` and ``base.py``)
with the short calls' routing and tile table inside GEMM1's launch.

Why. In q8rt's short calls (up to ``TILES_MAX_PAIRS`` routed pairs: the decode rows, 16 of the 19 workloads) the
routing and the tile table are one launch of 14 us, and the GPU then waits 28-38 us for the host to issue GEMM1
(H200, 2026-12-02 call BT, ``benchmarks/results/span_anatomy_h200_moe_q8rt_bt.md``: 9.4-9.8 % of a 359-427 us
span at 32-59 tokens; one host launch takes longer than the kernel before it runs). Here GEMM1's launch carries the
routing: its grid is (max(tiles, T), N blocks, 2). Plane 0 routes: program (t, 0, 0) for each token t < T runs q8's
routing (``base._route_kernel``), counts itself done (an acq_rel atomic after a CTA barrier), and the last token's
program builds the tile table (``base._tile_table_kernel``), resets the count and publishes the call's epoch on a
flag (a release exchange after a CTA barrier); plane 0's other programs return. Plane 1 is q8's GEMM1 (its kernel
called as a device function, so ``program_id`` 0 / 1 are its tile and N block): each program spins on the flag until
it reads this call's epoch (acquire), then runs. CUDA dispatches a launch's programs in order of their linear index
(x fastest, plane z last): every routing program is dispatched before any waiting one, so the waits end. The epoch
cycles through 2-15 (an unspecialised argument whose launch key never changes: not 1 nor a multiple of 16, the int
values Triton and ``fastlaunch.py`` key on; two calls in a row never share one; the flag starts at 0). The call's launches drop from four to three, and the host's time to issue GEMM2 overlaps GEMM1.

Under the Triton interpreter, which runs programs one after another with x outermost, the same code runs as two
launches (``PHASES`` 1: the routing plane; 2: GEMM1 without the wait). ``FUSE_GEMM1=0`` is q8rt. Longer calls are
q8rt's (routing launch, GPU tile table, GEMM1 launch).
"""

import os

import torch
import triton
import triton.language as tl

from . import q8rt as _rt
from .base import TILES_MAX_PAIRS, TOP_K, _route_kernel, _tile_table_kernel
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton", "FUSE_GEMM1": 1}  # kernelopt:params

_q8 = _rt._q8
_gemm1 = _q8._gemm1_swiglu_q8_kernel  # called below as a device function: program_id 0 / 1 are its tile and N block
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"
#: The epochs a call publishes, in turn (see the module docstring).
EPOCHS = tuple(range(2, 16))


@triton.jit(do_not_specialize=["epoch"])
def _route_gemm1_kernel(logits_ptr, bias_ptr, idx_ptr, rw_ptr, scale, sync_ptr, epoch,
                        order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                        a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, h_ptr, hs_ptr, T,
                        E: tl.constexpr, NG: tl.constexpr, KG: tl.constexpr, TOPK: tl.constexpr,
                        BLOCK_M: tl.constexpr, NUM_LOCAL_C: tl.constexpr, P_PAD: tl.constexpr, NT_PAD: tl.constexpr,
                        H: tl.constexpr, I: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, QMAX: tl.constexpr, PHASES: tl.constexpr):
    """Plane 0: token ``program_id(0)``'s routing, the last token's program the tile table and the epoch; plane 1:
    GEMM1 tile ``program_id(0)``, N block ``program_id(1)``, once the epoch is published. ``PHASES`` 3 is both
    (one launch), 1 the routing alone, 2 GEMM1 alone (no wait)."""
    if PHASES == 2:
        if tl.program_id(0) < n_tiles:
            _gemm1(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, table_ptr, order_ptr, h_ptr, hs_ptr,
                   T, H, I, TOPK, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, UPCAST, QMAX)
    elif tl.program_id(2) == 0:
        if (tl.program_id(0) < T) & (tl.program_id(1) == 0):
            _route_kernel(logits_ptr, bias_ptr, idx_ptr, rw_ptr, scale, E, NG, KG, TOPK)
            tl.debug_barrier()  # every thread's routing stores precede the count
            if tl.atomic_add(sync_ptr, 1, sem="acq_rel") == T - 1:
                _tile_table_kernel(idx_ptr, order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                                   BLOCK_M, NUM_LOCAL_C, P_PAD, NT_PAD)
                tl.debug_barrier()  # every thread's table stores precede the epoch
                tl.atomic_xchg(sync_ptr, 0)
                tl.atomic_xchg(sync_ptr + 1, epoch, sem="release")
    elif tl.program_id(0) < n_tiles:
        while tl.atomic_add(sync_ptr + 1, 0, sem="acquire") != epoch:
            pass
        _gemm1(a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, table_ptr, order_ptr, h_ptr, hs_ptr,
               T, H, I, TOPK, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, UPCAST, QMAX)


#: Per device: int32 [routing programs done (0 between calls), published epoch], and the next epoch's index.
_SYNC: dict = {}


def _sync(device: torch.device) -> tuple[torch.Tensor, int]:
    """The device's sync buffer and this call's epoch (the next in ``EPOCHS``)."""
    buf, n = _SYNC.get(device, (None, 0))
    if buf is None:
        buf = torch.zeros(2, dtype=torch.int32, device=device)
    _SYNC[device] = (buf, n + 1)
    return buf, EPOCHS[n % len(EPOCHS)]


def _launch_table(kernels: dict, fused) -> dict:
    """q8rt's launch table with, for short calls (``FUSE_GEMM1`` on and the table in one program), the routing and
    the tile table held back and issued with GEMM1's arguments as one launch of ``fused``."""
    held: dict = {}

    def route(grid, *args, **kw):  # a call's first launch: nothing held from a call cut short carries over
        held.clear()
        if int(PARAMS["FUSE_GEMM1"]) and grid[0] * TOP_K <= TILES_MAX_PAIRS:
            held["route"] = (grid, args, kw)
            return None
        return kernels["route"][grid](*args, **kw)

    def tiles(grid, *args, **kw):
        if "route" not in held:
            return kernels["tiles"][grid](*args, **kw)
        held["tiles"] = (grid, args, kw)
        return None

    def gemm1(grid, *args, **kw):
        if "tiles" not in held:
            return kernels["gemm1"][grid](*args, **kw)
        (rgrid, rargs, rkw), (_tgrid, targs, tkw) = held.pop("route"), held.pop("tiles")
        t = rgrid[0]
        # routing (logits, bias, ids, weights, scale), sync and epoch, the table's arguments after its ids, GEMM1's
        # operands before its table and order, its outputs and T; the constexprs of all three
        buf, epoch = _sync(rargs[0].device)
        lead = (*rargs, buf, epoch, *targs[1:], *args[:4], *args[6:])
        consts = {**{k: v for k, v in rkw.items() if k != "num_warps"}, **{k: v for k, v in tkw.items()
                                                                          if k not in ("num_warps", "BLOCK_M")}}
        gkw = {k: v for k, v in kw.items() if k != "TOPK"}
        if _INTERPRET:  # programs run one after another: the routing plane, then GEMM1 (no wait)
            fused[(t, 1, 1)](*lead, **consts, **gkw, PHASES=1)
            return fused[(grid[0], grid[1], 1)](*lead, **consts, **gkw, PHASES=2)
        return fused[(max(grid[0], t), grid[1], 2)](*lead, **consts, **gkw, PHASES=3)

    return {**kernels, "route": _rt._Grid(route), "tiles": _rt._Grid(tiles), "gemm1": _rt._Grid(gemm1)}


_rt.PARAMS = PARAMS
_q8.PARAMS = PARAMS
_q8._LAUNCHERS = {"jit": _launch_table(_q8._LAUNCHERS["jit"], _route_gemm1_kernel),
                  "fast": _launch_table(_q8._LAUNCHERS["fast"], fast(_route_gemm1_kernel))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
