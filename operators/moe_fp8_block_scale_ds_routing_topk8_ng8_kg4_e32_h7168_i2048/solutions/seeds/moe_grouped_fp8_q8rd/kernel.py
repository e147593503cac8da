"""DeepSeek-V3 FP8 block-scale MoE: the retained kernel's seeds in one package, ``moe_grouped_fp8_q8rg`` (routing
and tile table inside GEMM1's launch, ``q8rg.py``) over ``moe_grouped_fp8_q8tw`` (``q8tw.py``: the long calls'
descriptor GEMMs), with the short calls' GEMM2 on q8tw's descriptor kernel too (``TMA2_SHORT``).

Why. Nsight Compute on the H200 (2026-12-02 call CE, ``benchmarks/results/ncu_sections_h200_moe_retained_59_ce.md``):
at 59 tokens the fused routing + GEMM1 streams its weights at 3.64 TB/s but GEMM2 at 2.54 TB/s (4.38 waves, 34 %
occupancy), and the 32-80 token band is 11 of the 19 workloads and ~40 % of the contest mean. The short calls' GEMM2
is q8's pointer kernel: every W2 tile [BLOCK_N2, BLOCK_K] is loaded through a tensor of 64-bit addresses (registers
per element, address arithmetic per K step). q8tw's GEMM2 (``_gemm2_tw_kernel``, the retained kernel above 4,096
tokens since call CF) loads the intermediate rows and the W2 tiles through in-kernel tensor descriptors (TMA on
Hopper: asynchronous bulk copies into shared memory, no address tensors) and applies one W2 scale per K step as a
per-row factor. Here short calls (up to ``TILES_MAX_PAIRS`` routed pairs) launch it at their own tiles (BLOCK_M 16
there: no wgmma, the dots on mma) and their own warp count ``SHORT_WARPS2`` (0: ``num_warps``); ``TMA2_SHORT=0`` is
q8rg over q8tw as they are. Longer calls are q8tw's (above ``TILES_MAX_PAIRS``: q8tc's exact grid and descriptor
GEMMs; the retained dispatch keeps q8rt's pointer GEMMs for 81-4,096 tokens).

``SHORT_STAGES2`` (0: ``num_stages``): the short calls' GEMM2 pipeline stages, on either kernel. q8's entry point gives
both GEMMs ``num_stages``; at the short point GEMM1 (fused with the routing) holds 4 stages of 34 KB, one program per
SM, and 3 stages (two per SM) read 1.090 of it up to 80 tokens (H200, call CI) with GEMM2 at 3 stages too: this
separates the two.

Same arithmetic as q8 up to the order of the scale products (``(h_s * w_s) * dot`` per row instead of ``dot *
(h_s * w_s)`` per column: the same fp32 product).
"""

# q8tw first: the package's q8 launch tables become q8tw's (q8tc's exact grid, q8td's GEMMs)
from . import q8tw as _tw  # noqa: I001
from . import q8rg as _rg  # then q8rg's (its module wraps the tables it finds; rebuilt below over this seed's table)
from .base import TILES_MAX_PAIRS
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 4, "LAUNCH": "fast", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 1, "TMA": 1, "A_SORTED": 0, "PERSIST": 0, "NUM_WARPS2": 4, "ROUTE_WARPS": 1, "FUSE_GEMM1": 1, "TMA2_SHORT": 1, "SHORT_WARPS2": 0, "SHORT_STAGES2": 0}  # kernelopt:params

_td = _tw._td
_ex = _td._ex
_rt = _ex._rt
_q8 = _ex._q8


def _short_gemm2(wrap) -> "_rt._Grid":
    """GEMM2 of the calls q8td leaves to q8's kernel (up to ``TILES_MAX_PAIRS`` pairs: at ``SHORT_STAGES2`` stages):
    under ``TMA2_SHORT`` q8tw's descriptor kernel at ``SHORT_WARPS2`` warps, else q8's pointer kernel (``wrap``: jit or
    fast). Both launchers are the returned object's attributes ``plain`` and ``descriptor`` (the seed's test records
    what they receive)."""

    def gemm2(grid, *args, **kw):  # (h, h_scale, w2, w2_scale, table, y)
        if args[5].shape[0] > TILES_MAX_PAIRS:
            return launcher.plain[grid](*args, **kw)
        stages = int(PARAMS["SHORT_STAGES2"]) or kw["num_stages"]
        kw = {**kw, "NUM_STAGES": stages, "num_stages": stages}
        if not int(PARAMS["TMA2_SHORT"]):
            return launcher.plain[grid](*args, **kw)
        return launcher.descriptor[grid](*args, args[0].shape[0], **kw, E=args[2].shape[0])

    launcher = _rt._Grid(gemm2)
    launcher.plain = wrap(_q8._gemm2_q8_kernel)
    launcher.descriptor = _tw._OwnWarps(wrap(_tw._gemm2_tw_kernel), "SHORT_WARPS2")
    return launcher


# every module of this package reads this seed's PARAMS
for _module in (_tw, _rg, _tw._tc, _td, _ex, _rt, _q8):
    _module.PARAMS = PARAMS
# q8rt's tables (routing at ROUTE_WARPS, GEMM2 above) under q8td's long-call GEMMs (q8tw's GEMM2) and q8ex's bf16
# GEMM2 rows, under q8rg's routing-in-GEMM1 launch of the short calls
_WRAPS = {"jit": lambda k: k, "fast": fast}
SHORT_GEMM2 = {name: _short_gemm2(wrap) for name, wrap in _WRAPS.items()}
_q8._LAUNCHERS = {
    name: _rg._launch_table(_ex._launch_table(_td._launch_table(
        {**_ex._RT_LAUNCHERS[name], "route": _tw._OwnWarps(_ex._RT_LAUNCHERS[name]["route"], "ROUTE_WARPS"),
         "gemm2": SHORT_GEMM2[name]},
        *_tw._launchers(wrap))), wrap(_rg._route_gemm1_kernel))
    for name, wrap in _WRAPS.items()}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    if int(PARAMS["SHORT_STAGES2"]) not in range(0, 8):
        raise ValueError(f"moe_grouped_fp8_q8rd: SHORT_STAGES2={PARAMS['SHORT_STAGES2']!r} must be 0 (num_stages) to 7")
    if int(PARAMS["SHORT_WARPS2"]) not in (0, 1, 2, 4, 8):
        raise ValueError(f"moe_grouped_fp8_q8rd: SHORT_WARPS2={PARAMS['SHORT_WARPS2']!r} must be 0 (the call's), "
                         "1, 2, 4 or 8")
    if int(PARAMS["TMA2_SHORT"]) and int(PARAMS["BLOCK_N"]) < 16:
        raise ValueError("moe_grouped_fp8_q8rd: TMA2_SHORT needs BLOCK_N >= 16 (GEMM2's K step is a descriptor "
                         "block of at least 16 bytes)")
    # q8tw's run checks its own parameters and sets the descriptors' scratch allocator (q8td)
    _tw.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)

