"""DeepSeek-V3 FP8 block-scale MoE: the retained long path (``moe_grouped_fp8_q8s2``, linked as ``q8s2.py``: q8hp's
plan per call shape, GEMM2 at ``STAGES2``) with both long GEMMs on Gluon kernels (``gluon_kernels.py``) where the device runs them.

Why. Above 4,096 tokens the two GEMMs are ~85 % of the call (GEMM1 1,085 us and GEMM2 583 us of ~1,960 at 14,107
tokens, H200 calls CF / CM) and run at ~0.55 / ~0.51 of the measured FP8 rate: Triton waits for every block-scaled
wgmma before its FMAs. The Gluon kernels keep one wgmma in flight while the other half's FMAs run (GEMM1: up and
gate; GEMM2: two column halves), operands through a TMA ring of ``GLUON_STAGES`` / ``GLUON_STAGES2`` buffers.
GEMM1 reads the activations permuted into the tiles' row order (q8td's ``_permute_kernel``, one more launch).

``GLUON=1``: calls the plan issues (``HOST_PATH="lean"``, the long points) on a CUDA device of compute capability
9.x with a Triton that has Gluon run the Gluon GEMMs; every other call (and ``GLUON=0``, the interpreter, other
GPUs) is q8s2's. Same tile table, scales, epilogues and outputs.
"""

import torch

from . import gluon_gemms as _gl
from . import q8s2 as _s2

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 4, "LAUNCH": "fast", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 1, "TMA": 1, "A_SORTED": 0, "PERSIST": 0, "NUM_WARPS2": 4, "ROUTE_WARPS": 1, "HOST_PATH": "lean", "STAGES2": 3, "GLUON": 1, "GLUON_STAGES": 4, "GLUON_STAGES2": 3}  # kernelopt:params

_hp = _s2._hp
_td = _hp._td
# this package's own copies of q8s2, q8hp and the modules under them read this seed's PARAMS
for _module in (_s2, _hp, _hp._tw, _hp._tc, _td, _hp._ex, _hp._rt, _hp._q8):
    _module.PARAMS = PARAMS
_S2_PLAN = _hp.LongPlan  # q8s2's plan (q8hp's with GEMM2 at STAGES2)


def _plan(t, device, cfg: dict, kernels: dict):
    """q8s2's plan; with ``GLUON=1`` on a device that runs them, its two GEMM steps on the Gluon kernels."""
    plan = _S2_PLAN(t, device, cfg, kernels)
    if int(PARAMS["GLUON"]) and not cfg["INTERPRET"] and _gl.usable(torch.device(device)):
        plan.gemm1 = _gl.Gemm1(_td._permute_kernel, plan.n_pairs, cfg, int(PARAMS["GLUON_STAGES"]))
        plan.gemm2 = _gl.Gemm2(cfg, int(PARAMS["GLUON_STAGES2"]))
    return plan


_hp.LongPlan = _plan  # q8hp's entry point builds its plans through this module attribute


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    if int(PARAMS["GLUON"]) not in (0, 1) or int(PARAMS["GLUON_STAGES"]) not in (2, 3, 4) \
            or int(PARAMS["GLUON_STAGES2"]) not in (2, 3, 4, 5):
        raise ValueError(f"moe_grouped_fp8_q8gl: GLUON={PARAMS['GLUON']!r} must be 0 or 1, GLUON_STAGES="
                         f"{PARAMS['GLUON_STAGES']!r} 2-4, GLUON_STAGES2={PARAMS['GLUON_STAGES2']!r} 2-5")
    if int(PARAMS["GLUON"]):
        why = _gl.refusal(PARAMS, hidden_states.shape[1], gemm2_weights.shape[2])
        if why:
            raise ValueError(f"moe_grouped_fp8_q8gl: GLUON=1 needs {why}; or GLUON=0")
    _s2.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
