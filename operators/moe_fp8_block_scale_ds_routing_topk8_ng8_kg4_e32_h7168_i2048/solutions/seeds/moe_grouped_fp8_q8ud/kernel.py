"""DeepSeek-V3 FP8 block-scale MoE: the retained ``moe_grouped_fp8_q8hp`` seed (``q8hp.py``: q8tw's long calls with
their host side as one plan per call shape) with the long calls' GEMM1 as one dot per K step over the up and gate
rows together (``ONE_DOT=1``).

Why. q8td's GEMM1 (``_gemm1_swiglu_td_kernel``, the retained long calls') issues two dots per K step, [BLOCK_M,
128] x [128, BLOCK_N] for the up rows and again for the gate rows, and scales each product by its block scales before
the next. Compiled for sm_90 (Triton 3.9 here, TTGIR) each dot is an asynchronous wgmma followed at once by a wait for
it (``warp_group_dot_wait {pendings = 0}``): the tensor cores idle while the FMAs run and the FMAs wait for the
tensor cores, twice per K step, at one resident program per SM (248 registers, 140 KB; a second program per SM at
4 warps ran 1.46-1.79x slower, H200 call CO). At 8 warps each warp group takes half of each dot's columns (two
m64n64 wgmma chains per K step).

Here one tensor descriptor over W1 viewed as [E * 2, I, H] loads the program's up and gate tiles as one [2, BLOCK_N,
128] block; reshaped to [2 * BLOCK_N, 128] it is one dot's operand, [BLOCK_M, 2 * BLOCK_N] the product: one wgmma
chain and one wait per K step (at 8 warps a warp group per half: m64n128), and one FMA per element with the scale
of the element's half. After the K loop the accumulator splits back into the up and gate halves. Same arithmetic as
q8td up to the order of each dot's partial sums. Calls the plan issues (``HOST_PATH="lean"``, the long points) take
this GEMM1; every other call is q8hp's.
"""

import triton
import triton.language as tl

from . import q8hp as _hp
from .base import _tile_rows

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 4, "LAUNCH": "fast", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 1, "TMA": 1, "A_SORTED": 0, "PERSIST": 0, "NUM_WARPS2": 4, "ROUTE_WARPS": 1, "HOST_PATH": "lean", "ONE_DOT": 1}  # kernelopt:params


@triton.jit
def _gemm1_swiglu_ud_kernel(
    a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T, xs_ptr, n_rows,
    H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, QMAX: tl.constexpr, E: tl.constexpr, A_SORTED: tl.constexpr,
):
    """q8td's GEMM1 program (tile, n) (gathered activations: ``A_SORTED`` must be 0) with the up and gate W1 tiles
    loaded as one [2, BLOCK_N, BLOCK_K] block and multiplied as one [BLOCK_M, 2 * BLOCK_N] dot per K step."""
    pid_n = tl.program_id(1)
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows == 0:
        return
    pair = tl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(tl.int64)
    token = pair // TOPK
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    a_rows = a_ptr + token * H                                                  # [BM] row starts (fp8)
    # W1 [E, 2I, H] as [E * 2, I, H]: plane 2e holds expert e's up rows, 2e + 1 its gate rows
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[E * 2, I, H], strides=[I * H, H, 1],
                                       block_shape=[2, BLOCK_N, BLOCK_K])
    plane = (expert * 2).to(tl.int32)
    row = (pid_n * BLOCK_N).to(tl.int32)
    KB: tl.constexpr = H // BLOCK_K
    # one W1 scale block per (K block, half): BLOCK_N divides the 128-wide scale block (q8's entry point checks it)
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (pid_n * BLOCK_N // BLOCK_K) * KB
    s_gate = s_up + (I // BLOCK_K) * KB
    gate_half = tl.arange(0, 2 * BLOCK_N) >= BLOCK_N                            # [2BN]: the product's gate columns

    acc = tl.zeros((BLOCK_M, 2 * BLOCK_N), dtype=tl.float32)
    for kb in tl.range(0, KB, num_stages=NUM_STAGES):
        k0 = kb * BLOCK_K
        a = tl.load(a_rows[:, None] + (k0 + offs_k)[None, :], mask=mask_m[:, None], other=0.0)
        a_s = tl.load(a_scale_ptr + kb * T + token, mask=mask_m, other=0.0)
        w = tl.reshape(w_desc.load([plane, row, k0]), (2 * BLOCK_N, BLOCK_K))  # up rows, then gate rows
        if UPCAST:
            a = a.to(tl.float32)
            w = w.to(tl.float32)
        s_w = tl.where(gate_half, tl.load(s_gate + kb), tl.load(s_up + kb))      # [2BN]
        acc += tl.dot(a, w.T) * (a_s[:, None] * s_w[None, :])

    acc_up, acc_gate = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N)), (0, 2, 1)))
    h = acc_gate / (1.0 + tl.exp(-acc_gate)) * acc_up   # silu(X2) * X1, as the reference
    scale = tl.maximum(tl.max(tl.abs(h), axis=1), 1e-30) / QMAX                 # [BM]: one per (row, group)
    q = h / scale[:, None]
    rows_idx = start + offs_m
    tl.store(h_ptr + rows_idx[:, None] * I + offs_n[None, :], q.to(h_ptr.dtype.element_ty), mask=mask_m[:, None])
    tl.store(hs_ptr + rows_idx * (I // BLOCK_N) + pid_n, scale, mask=mask_m)


_tw, _td, _ex, _rt, _q8 = _hp._tw, _hp._td, _hp._ex, _hp._rt, _hp._q8
_LAYERED = dict(_hp._KERNELS)
# this package's own copies of q8hp and the modules under it read this seed's PARAMS
for _module in (_hp, _tw, _hp._tc, _td, _ex, _rt, _q8):
    _module.PARAMS = PARAMS


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    if int(PARAMS["ONE_DOT"]) not in (0, 1):
        raise ValueError(f"moe_grouped_fp8_q8ud: ONE_DOT={PARAMS['ONE_DOT']!r} must be 0 or 1")
    # q8hp builds its plans from its module's kernel table (the plan key holds PARAMS, so ONE_DOT too)
    _hp._KERNELS = {**_LAYERED, "gemm1": _gemm1_swiglu_ud_kernel} if int(PARAMS["ONE_DOT"]) else _LAYERED
    _hp.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
