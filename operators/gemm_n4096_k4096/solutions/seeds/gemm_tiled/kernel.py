"""Tiled GEMM ``C = A @ B.T`` (A [M,4096], B [4096,4096] fp16, C fp16) as a tunable Triton kernel.

Each program computes one ``BLOCK_M x BLOCK_N`` tile of C over a ``4096 / SPLIT_K`` slice of K,
walking it in ``BLOCK_K`` steps with an fp32 accumulator fed by ``tl.dot`` (wgmma on sm_90 for fp16
operands); the K loop is software-pipelined ``num_stages`` deep. Programs are ordered in
``GROUP_M``-row super-groups so consecutive programs reuse B columns and A rows from L2. B is read
as its transpose through strides (B is [N, K] row-major = K-major, the layout the tensor cores want).

``SPLIT_K == 1`` stores fp16 C directly. ``SPLIT_K > 1`` (for small M, where ceil(M/BLOCK_M) *
4096/BLOCK_N tiles cannot fill 132 SMs while streaming the 32 MiB B) writes fp32 partial tiles to a
``[SPLIT_K, M, N]`` workspace and a second kernel sums them in a fixed order (deterministic) and
rounds once to fp16.
Entry point: ``run(A, B, C)`` (destination-passing style).
"""

import os

import torch
import triton
import triton.language as tl

PARAMS = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 128, "GROUP_M": 4, "SPLIT_K": 1, "num_warps": 8, "num_stages": 4}  # kernelopt:params

N_CONST = 4096
K_CONST = 4096
REDUCE_BLOCK = 1024
# The CPU interpreter runs dots in numpy; upcasting there keeps its arithmetic in fp32.
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"


@triton.jit
def _gemm_kernel(
    a_ptr, b_ptr, c_ptr, ws_ptr, M, N, K_SPLIT,
    stride_am, stride_ak, stride_bn, stride_bk, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr, NUM_STAGES: tl.constexpr, UPCAST: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = pid_k * K_SPLIT + tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :].to(tl.int64) * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in tl.range(0, K_SPLIT // BLOCK_K, num_stages=NUM_STAGES):
        a = tl.load(a_ptrs, mask=mask_m[:, None], other=0.0)
        b = tl.load(b_ptrs, mask=mask_n[None, :], other=0.0)
        if UPCAST:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc)
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    mask_c = mask_m[:, None] & mask_n[None, :]
    if SPLIT_K == 1:
        c_ptrs = c_ptr + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_c)
    else:
        w_ptrs = ws_ptr + (pid_k * M + offs_m[:, None]).to(tl.int64) * N + offs_n[None, :]
        tl.store(w_ptrs, acc, mask=mask_c)


@triton.jit
def _split_k_reduce_kernel(ws_ptr, c_ptr, MN, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.load(ws_ptr + offs, mask=mask, other=0.0)
    for s in tl.static_range(1, SPLIT_K):
        acc += tl.load(ws_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)


def run(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor) -> None:
    """Write ``A @ B.T`` into ``C`` (fp32 accumulation, rounded once to C's dtype)."""
    bm, bn, bk = int(PARAMS["BLOCK_M"]), int(PARAMS["BLOCK_N"]), int(PARAMS["BLOCK_K"])
    split_k = int(PARAMS["SPLIT_K"])
    M, K = A.shape
    N = B.shape[0]
    if K != K_CONST or N != N_CONST or B.shape[1] != K or C.shape != (M, N):
        raise ValueError(f"gemm_tiled: unexpected shapes A{tuple(A.shape)} B{tuple(B.shape)} C{tuple(C.shape)}")
    if K % (bk * split_k) != 0:
        raise ValueError(f"gemm_tiled: K={K} is not a multiple of BLOCK_K*SPLIT_K={bk * split_k}")
    if M == 0:
        return
    if split_k > 1 and not C.is_contiguous():
        raise ValueError("gemm_tiled: SPLIT_K > 1 needs a contiguous C")
    ws = torch.empty((split_k, M, N), device=C.device, dtype=torch.float32) if split_k > 1 else C
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), split_k)
    _gemm_kernel[grid](
        A, B, C, ws, M, N, K // split_k,
        A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=int(PARAMS["GROUP_M"]), SPLIT_K=split_k,
        NUM_STAGES=int(PARAMS["num_stages"]), UPCAST=_INTERPRET,
        num_warps=int(PARAMS["num_warps"]), num_stages=int(PARAMS["num_stages"]),
    )
    if split_k > 1:
        _split_k_reduce_kernel[(triton.cdiv(M * N, REDUCE_BLOCK),)](
            ws, C, M * N, SPLIT_K=split_k, BLOCK=REDUCE_BLOCK, num_warps=4)
