"""DeepSeek-V3 FP8 block-scale MoE: the retained ``moe_grouped_fp8_q8hp`` seed (``q8hp.py``: q8tw's long calls with
their host side as one plan per call shape) with the long calls' GEMM2 at its own pipeline depth (``STAGES2``; 0:
``num_stages``).

Why. The plan gives both long GEMMs ``num_stages`` (4). q8tw's GEMM2 at its 4 warps then holds 99 KB of shared
memory and 154 registers per thread (compiled for sm_90 here, Triton 3.9): two programs per SM, held by shared memory.
At 3 stages it takes 74 KB, at 2 49 KB: three programs per SM (154 x 128 x 3 registers fit), so while one waits for
its wgmma before the block-scale FMAs (Triton waits for each dot, ``warp_group_dot_wait {pendings = 0}``) two others
can issue theirs. GEMM1 needs its 4 stages at 8 warps (one program per SM by registers; 4 warps ran 1.46-1.79x
slower, H200 call CO). At 14,107 tokens GEMM2 takes 578 us of the 1,961 us span (call CM).

Calls the plan issues (``HOST_PATH="lean"``, the long points) launch GEMM2 at ``STAGES2`` stages; every other call
is q8hp's. Same kernels and arithmetic.
"""

from . import q8hp as _hp
from .long_plan import BoundLaunch

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 4, "LAUNCH": "fast", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 1, "TMA": 1, "A_SORTED": 0, "PERSIST": 0, "NUM_WARPS2": 4, "ROUTE_WARPS": 1, "HOST_PATH": "lean", "STAGES2": 3}  # kernelopt:params

_tw, _td, _ex, _rt, _q8 = _hp._tw, _hp._td, _hp._ex, _hp._rt, _hp._q8
# this package's own copies of q8hp and the modules under it read this seed's PARAMS
for _module in (_hp, _tw, _hp._tc, _td, _ex, _rt, _q8):
    _module.PARAMS = PARAMS
_PLAN = _hp.LongPlan


def _plan(t, device, cfg: dict, kernels: dict):
    """q8hp's plan with its GEMM2 launch rebound at ``STAGES2`` stages (the plan key holds PARAMS, so STAGES2 too)."""
    plan = _PLAN(t, device, cfg, kernels)
    stages = int(PARAMS["STAGES2"]) or cfg["num_stages"]
    plan.gemm2 = BoundLaunch(kernels["gemm2"], cfg["INTERPRET"], **{**plan.gemm2.kw, "NUM_STAGES": stages,
                                                                    "num_stages": stages})
    return plan


_hp.LongPlan = _plan  # q8hp's entry point builds its plans through this module attribute


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    if int(PARAMS["STAGES2"]) not in (0, 2, 3, 4, 5):
        raise ValueError(f"moe_grouped_fp8_q8s2: STAGES2={PARAMS['STAGES2']!r} must be 0 (num_stages), 2, 3, 4 or 5")
    _hp.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
