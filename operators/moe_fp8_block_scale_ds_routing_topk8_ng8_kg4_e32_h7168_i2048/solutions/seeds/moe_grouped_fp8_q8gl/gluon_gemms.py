"""The plan's GEMM steps on the Gluon kernels (``gluon_kernels.py``) where the device runs them (:func:`usable`)."""

from __future__ import annotations

import importlib.util

import torch

# Rows of one wgmma warp group: the Gluon GEMMs lay 4 warps of 16 rows along M, so BLOCK_M must be a multiple of this
# (Gluon refuses "WGMMA result M dimension must be divisible by 64" otherwise: H100 call OA2, 2026-12-06).
WGMMA_ROWS = 64
#: the Gluon GEMMs' K block (TMA boxes of [rows, 128]); GEMM2 reads the intermediate's scales one per K block, so
#: GEMM1's BLOCK_N must be this too (at BLOCK_N 64 it reads them at the wrong stride; H100 call OA4's case, BLOCK_N 64
#: and fewer K blocks than ring buffers, gave a relative error of 0.86)
K_BLOCK = 128


def refusal(params: dict, hidden: int | None = None, inter: int | None = None) -> str:
    """Why the Gluon GEMMs cannot run ``params`` (and, given, a call's hidden / intermediate sizes), else ``""``.
    Checked on every device, so a point is refused the same way in the interpreter as on the GPU."""
    if int(params["BLOCK_M"]) % WGMMA_ROWS:
        return f"BLOCK_M a multiple of {WGMMA_ROWS} (one warp group's wgmma rows), not {params['BLOCK_M']!r}"
    if int(params["BLOCK_N"]) != K_BLOCK:
        return (f"BLOCK_N {K_BLOCK} (GEMM2's K block, one intermediate scale per block), "
                f"not {params['BLOCK_N']!r}")
    # each ring buffer is filled before the K loop: at least as many K blocks as buffers (7,168 / 2,048 in the
    # contest: 56 / 16 blocks)
    for name, size in (("GLUON_STAGES", hidden), ("GLUON_STAGES2", inter)):
        if size is not None and size // K_BLOCK < int(params[name]):
            return f"{name}={params[name]!r} buffers at most {size} / {K_BLOCK} K blocks"
    return ""


def usable(device: torch.device) -> bool:
    """Whether ``device`` runs the Gluon GEMMs: a CUDA device of compute capability 9.x and a Triton with Gluon."""
    return (device.type == "cuda" and torch.cuda.get_device_capability(device)[0] == 9
            and importlib.util.find_spec("triton.experimental.gluon") is not None)


def _desc(t: torch.Tensor, rows: int):
    """A TMA descriptor over the 2-D FP8 tensor ``t`` with [rows, 128] boxes."""
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    layout = gl.NVMMASharedLayout.get_default_for([rows, 128], gl.float8e4nv)
    return TensorDescriptor(t, list(t.shape), list(t.stride()), [rows, 128], layout)


class Gemm1:
    """The plan's GEMM1 step (called as q8hp's bound GEMM1: ``(grid, a, a_scale, w, w_scale, table, order, h,
    h_scale, T, xs, n_rows)``): the activations permuted into ``xs`` (q8td's kernel, over the grid's tiles), then
    the Gluon GEMM1. ``xs`` is allocated once per plan."""

    def __init__(self, permute, n_pairs: int, cfg: dict, stages: int) -> None:
        from . import gluon_kernels

        self.kernel = gluon_kernels._gemm1_gluon_kernel
        self.permute, self.n_pairs, self.cfg, self.stages = permute, n_pairs, cfg, stages
        self.xs = None

    def __call__(self, grid: tuple, a, a_scale, w, w_scale, table, order, h, h_scale, t, _xs, _n) -> None:
        c = self.cfg
        hidden = a.shape[1]
        if self.xs is None:  # a plan serves one call shape: the same hidden size and dtype every call
            self.xs = torch.empty((self.n_pairs, hidden), dtype=a.dtype, device=a.device)
        self.permute[(grid[0], hidden // 128)](a, table, order, self.xs, H=hidden, TOPK=c["TOPK"],
                                               BLOCK_M=c["BLOCK_M"], BLOCK_H=128, num_warps=4)
        self.kernel[grid](_desc(self.xs, c["BLOCK_M"]), _desc(w.view(-1, hidden), c["BLOCK_N"]), a_scale, w_scale,
                          table, order, h, h_scale, t, H=hidden, I=c["I"], TOPK=c["TOPK"], BLOCK_M=c["BLOCK_M"],
                          BLOCK_N=c["BLOCK_N"], BLOCK_K=128, STAGES=self.stages, QMAX=c["QMAX"],
                          num_warps=c["num_warps"])


class Gemm2:
    """The plan's GEMM2 step (called as q8hp's bound GEMM2: ``(grid, h, h_scale, w2, w2_scale, table, y,
    n_pairs)``) on the Gluon GEMM2 (two column halves of ``BLOCK_N2 / 2``, one warp group: 4 warps, as q8s2's
    ``NUM_WARPS2``)."""

    def __init__(self, cfg: dict, stages: int) -> None:
        from . import gluon_kernels

        self.kernel = gluon_kernels._gemm2_gluon_kernel
        self.cfg, self.stages, self.warps = cfg, stages, 4

    def __call__(self, grid: tuple, h, h_scale, w, w_scale, table, y, _n_pairs) -> None:
        c = self.cfg
        self.kernel[grid](_desc(h, c["BLOCK_M"]), _desc(w.view(-1, w.shape[-1]), c["BLOCK_N2"] // 2), h_scale,
                          w_scale, table, y, H=c["H"], I=c["I"], BLOCK_M=c["BLOCK_M"], BLOCK_N=c["BLOCK_N2"],
                          BLOCK_K=128, STAGES=self.stages, num_warps=self.warps)
