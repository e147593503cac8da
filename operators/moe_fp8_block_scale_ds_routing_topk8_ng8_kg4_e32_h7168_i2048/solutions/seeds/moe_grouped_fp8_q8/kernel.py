"""DeepSeek-V3 FP8 block-scale MoE with an FP8 intermediate: both grouped GEMMs on FP8 tensor cores.

The ``moe_grouped_fp8`` pipeline (``base.py`` is that seed's ``kernel.py``: routing, permutation, tile table
and the deterministic combine are reused from it unchanged) with one change, aimed at the large-T band. There
the H200 profile (2026-12-01 call AH, 14,107 tokens, the retained dispatch) splits the 4.3 ms of device time
evenly between GEMM1 (0.83 TFLOP, 1.92 ms = 430 TFLOP/s) and GEMM2 (0.41 TFLOP, 1.95 ms = 212 TFLOP/s): GEMM2
does half the work in the same time because its bf16 intermediate forces a bf16 dot (half the FP8 tensor
rate) and every W2 tile is converted fp8 -> bf16 in registers.

Here GEMM1's epilogue quantises its ``silu(gate) * up`` tile to FP8 e4m3 with one scale per (row, BLOCK_N
columns) group: ``scale = max|h| / 448`` over the group (the e4m3 range), ``q = h / scale`` (the layout of
the activations' own block scales, at BLOCK_N granularity). GEMM2 then walks K = 2048 in BLOCK_N-wide steps
and runs one FP8 ``tl.dot`` per step on raw operands, scaling each fp32 partial product by the rows' group
scales times the W2 128x128 block scale of each column (a step never straddles a W2 scale block:
BLOCK_N <= 128 divides 128). The intermediate is 1 byte per element (bf16: 2), and no operand conversion
sits in GEMM2's inner loop. Accuracy: e4m3 keeps 3 mantissa bits (relative rounding error <= 2^-4 per
element, unbiased), inside the contest tolerance (atol 1, rtol 0.3, 90 % matched) as the FP8 intermediates
of production DeepSeek MoE kernels are; not inside the harness default 1e-2.

``LAUNCH="fast"``: every buffer of the call is allocated before its first launch, and the five launches go
through ``fastlaunch.py`` (the compiled kernel's launcher after each specialisation's first call): the decode rows
(up to 80 tokens, 16 of the 19 workloads) are 91 % host gaps on the H200 at one token.

Under the Triton CPU interpreter (``TRITON_INTERPRET=1``) operands are upcast to fp32 before ``tl.dot``, as
in the base seed.
"""

import torch
import triton
import triton.language as tl

from .base import (
    _INTERPRET,
    COMBINE_BLOCK_H,
    HIDDEN,
    INTER,
    N_GROUP,
    NUM_EXPERTS,
    NUM_LOCAL,
    SCALE_BLOCK,
    TILES_MAX_PAIRS,
    TOP_K,
    TOPK_GROUP,
    _combine_kernel,
    _route_kernel,
    _tile_rows,
    _tile_table_kernel,
    _tiles,
)
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit"}  # kernelopt:params
FP8_MAX = 448.0  # largest finite float8 e4m3fn


@triton.jit
def _gemm1_swiglu_q8_kernel(
    a_ptr, a_scale_ptr, w_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T,
    H: tl.constexpr, I: tl.constexpr, TOPK: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr, QMAX: tl.constexpr,
):
    """Program (tile, n): the tile's rows of ``silu(x W_gate^T) * (x W_up^T)`` over columns
    ``n * BLOCK_N ...``, stored as FP8 ``h`` [pairs, I] plus one fp32 scale per row in ``hs`` [pairs, I / BLOCK_N]."""
    pid_n = tl.program_id(1)
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows == 0:
        return
    pair = tl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(tl.int64)
    token = pair // TOPK
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)

    a_ptrs = a_ptr + token[:, None] * H + offs_k[None, :]                      # [BM, BK] fp8
    a_scale_ptrs = a_scale_ptr + token                                         # [56, T]: + kb * T
    w_up = w_ptr + expert * (2 * I * H) + offs_n[None, :].to(tl.int64) * H + offs_k[:, None]  # [BK, BN]
    w_gate = w_up + I * H
    KB: tl.constexpr = H // BLOCK_K
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (offs_n // BLOCK_K) * KB   # [BN]
    s_gate = s_up + (I // BLOCK_K) * KB

    acc_up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in tl.range(0, KB, num_stages=NUM_STAGES):
        a = tl.load(a_ptrs, mask=mask_m[:, None], other=0.0)
        a_s = tl.load(a_scale_ptrs + kb * T, mask=mask_m, other=0.0)
        wu = tl.load(w_up)
        wg = tl.load(w_gate)
        if UPCAST:
            a = a.to(tl.float32)
            wu = wu.to(tl.float32)
            wg = wg.to(tl.float32)
        su = tl.load(s_up + kb)
        sg = tl.load(s_gate + kb)
        acc_up += tl.dot(a, wu) * (a_s[:, None] * su[None, :])
        acc_gate += tl.dot(a, wg) * (a_s[:, None] * sg[None, :])
        a_ptrs += BLOCK_K
        w_up += BLOCK_K
        w_gate += BLOCK_K

    h = acc_gate / (1.0 + tl.exp(-acc_gate)) * acc_up   # silu(X2) * X1, as the reference
    scale = tl.maximum(tl.max(tl.abs(h), axis=1), 1e-30) / QMAX                 # [BM]: one per (row, group)
    q = h / scale[:, None]
    rows_idx = start + offs_m
    tl.store(h_ptr + rows_idx[:, None] * I + offs_n[None, :], q.to(h_ptr.dtype.element_ty), mask=mask_m[:, None])
    tl.store(hs_ptr + rows_idx * (I // BLOCK_N) + pid_n, scale, mask=mask_m)


@triton.jit
def _gemm2_q8_kernel(
    h_ptr, hs_ptr, w_ptr, w_scale_ptr, tile_ptr, y_ptr,
    H: tl.constexpr, I: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SCALE_K: tl.constexpr,
    NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr,
):
    """Program (tile, n): ``Y[rows, n * BLOCK_N ...] = (q * hs) @ dequant(W2)^T`` with FP8 dots; BLOCK_K is
    GEMM1's BLOCK_N (the intermediate's scale group), SCALE_K the W2 scale block (128)."""
    pid_n = tl.program_id(1)
    expert, start, rows, offs_m, mask_m = _tile_rows(tile_ptr, BLOCK_M)
    if rows == 0:
        return
    offs_k = tl.arange(0, BLOCK_K)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_idx = start + offs_m
    KQ: tl.constexpr = I // BLOCK_K
    KB: tl.constexpr = I // SCALE_K

    h_ptrs = h_ptr + rows_idx[:, None] * I + offs_k[None, :]                  # [BM, BK] fp8
    hs_ptrs = hs_ptr + rows_idx * KQ                                            # [BM]: + kq
    w_ptrs = w_ptr + expert * (H * I) + offs_n[None, :].to(tl.int64) * I + offs_k[:, None]  # [BK, BN] fp8
    s_ptr = w_scale_ptr + expert * (H // SCALE_K) * KB + (offs_n // SCALE_K) * KB       # [BN], W2 scales [E, 56, 16]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kq in tl.range(0, KQ, num_stages=NUM_STAGES):
        h = tl.load(h_ptrs, mask=mask_m[:, None], other=0.0)
        h_s = tl.load(hs_ptrs + kq, mask=mask_m, other=0.0)
        w = tl.load(w_ptrs)
        if UPCAST:
            h = h.to(tl.float32)
            w = w.to(tl.float32)
        w_s = tl.load(s_ptr + (kq * BLOCK_K) // SCALE_K)
        acc += tl.dot(h, w) * (h_s[:, None] * w_s[None, :])
        h_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    tl.store(y_ptr + rows_idx[:, None] * H + offs_n[None, :], acc, mask=mask_m[:, None])


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    bm, bn1, bn2 = int(PARAMS["BLOCK_M"]), int(PARAMS["BLOCK_N"]), int(PARAMS["BLOCK_N2"])
    nw, ns = int(PARAMS["num_warps"]), int(PARAMS["num_stages"])
    if PARAMS["LAUNCH"] not in _LAUNCHERS:
        raise ValueError(f"moe_grouped_fp8_q8: LAUNCH={PARAMS['LAUNCH']!r} must be one of {sorted(_LAUNCHERS)}")
    k = _LAUNCHERS[PARAMS["LAUNCH"]]
    t = routing_logits.shape[0]
    hidden, inter = hidden_states.shape[1], gemm2_weights.shape[2]
    if (hidden_states.shape != (t, hidden) or gemm1_weights.shape != (NUM_LOCAL, 2 * inter, hidden)
            or gemm2_weights.shape != (NUM_LOCAL, hidden, inter) or output.shape != (t, hidden)
            or hidden % SCALE_BLOCK or inter % SCALE_BLOCK):
        # the definition fixes H 7168 / I 2048; any multiple of the 128 scale block runs (the CPU tests' small sizes)
        raise ValueError(f"moe_grouped_fp8_q8: unexpected shapes (H {HIDDEN}, I {INTER} for this definition)")
    if SCALE_BLOCK % bn1 or inter % bn1 or hidden % bn2:
        raise ValueError(f"moe_grouped_fp8_q8: BLOCK_N={bn1} must divide {SCALE_BLOCK} (one W2 scale block per "
                         f"K step of GEMM2), BLOCK_N2={bn2} must divide {hidden}")
    if t == 0:
        return
    dev = hidden_states.device
    offset = int(local_expert_offset)
    hs = hidden_states.contiguous()
    hs_scale = hidden_states_scale.float().contiguous()
    w1, w1_s = gemm1_weights.contiguous(), gemm1_weights_scale.float().contiguous()
    w2, w2_s = gemm2_weights.contiguous(), gemm2_weights_scale.float().contiguous()
    logits, bias = routing_logits.contiguous(), routing_bias.contiguous()
    # every buffer before the first launch: host steps between launches lie inside the official span
    n_pairs = t * TOP_K
    n_tiles = min(n_pairs, triton.cdiv(n_pairs, bm) + NUM_LOCAL)
    one_program_tiles = n_pairs <= TILES_MAX_PAIRS
    topk_idx = torch.empty((t, TOP_K), dtype=torch.int32, device=dev)
    rw = torch.empty((t, TOP_K), dtype=torch.float32, device=dev)
    if one_program_tiles:
        order = torch.empty(n_pairs, dtype=torch.int32, device=dev)
        pos = torch.empty(n_pairs, dtype=torch.int32, device=dev)
        table = torch.empty((n_tiles, 3), dtype=torch.int32, device=dev)
    h = torch.empty((n_pairs, inter), dtype=torch.float8_e4m3fn, device=dev)
    h_scale = torch.empty((n_pairs, inter // bn1), dtype=torch.float32, device=dev)
    y = torch.empty((n_pairs, hidden), dtype=torch.float32, device=dev)

    k["route"][(t,)](logits, bias, topk_idx, rw, float(routed_scaling_factor),
                     E=NUM_EXPERTS, NG=N_GROUP, KG=TOPK_GROUP, TOPK=TOP_K, num_warps=4)
    if one_program_tiles:
        k["tiles"][(1,)](topk_idx, order, table, pos, offset, n_pairs, n_tiles, BLOCK_M=bm, NUM_LOCAL_C=NUM_LOCAL,
                         P_PAD=max(triton.next_power_of_2(n_pairs), 16),
                         NT_PAD=max(triton.next_power_of_2(n_tiles), 16), num_warps=4)
    else:  # long calls: the torch tile table (their GEMMs dominate)
        order, table, pos, n_tiles = _tiles(topk_idx, offset, bm)
    k["gemm1"][(n_tiles, inter // bn1)](
        hs, hs_scale, w1, w1_s, table, order, h, h_scale, t,
        H=hidden, I=inter, TOPK=TOP_K, BLOCK_M=bm, BLOCK_N=bn1, BLOCK_K=SCALE_BLOCK,
        NUM_STAGES=ns, UPCAST=_INTERPRET, QMAX=FP8_MAX, num_warps=nw, num_stages=ns)
    k["gemm2"][(n_tiles, hidden // bn2)](
        h, h_scale, w2, w2_s, table, y,
        H=hidden, I=inter, BLOCK_M=bm, BLOCK_N=bn2, BLOCK_K=bn1, SCALE_K=SCALE_BLOCK,
        NUM_STAGES=ns, UPCAST=_INTERPRET, num_warps=nw, num_stages=ns)
    k["combine"][(t, triton.cdiv(hidden, COMBINE_BLOCK_H))](
        y, pos, rw.reshape(-1), output, H=hidden, TOPK=TOP_K, BLOCK_H=COMBINE_BLOCK_H, num_warps=4)


#: LAUNCH="jit": ``kernel[grid](...)``; "fast": the compiled kernel's launcher after each specialisation's first
#: call (``fastlaunch.py``: 12 vs 20 us per 12-parameter launch on the H200 host, five launches per call).
_KERNELS = {"route": _route_kernel, "tiles": _tile_table_kernel, "gemm1": _gemm1_swiglu_q8_kernel,
            "gemm2": _gemm2_q8_kernel, "combine": _combine_kernel}
_LAUNCHERS = {"jit": _KERNELS, "fast": {name: fast(fn) for name, fn in _KERNELS.items()}}
