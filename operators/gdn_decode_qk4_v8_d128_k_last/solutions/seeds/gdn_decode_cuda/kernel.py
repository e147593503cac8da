"""Gated Delta Net single-token decode (k-last state) as a CUDA C++ kernel (``kernel.cu``), compiled with NVRTC.

The Triton decode seeds left 0.3-0.45 us per call at batch 1-8 above a Triton tile copy of the state's bytes
with the same grid (``benchmarks/results/decode_copy_ceiling_h200_dl.md``): what lies between the state's
arrival and its store is a chain of dependent instructions in one or two warps per multiprocessor. This seed
writes that chain by hand: ``R`` V rows per warp, ``LPR`` lanes per row (log2(LPR) shuffle steps in each
reduction instead of Triton's five for a 128-wide row when LPR < 32), ``WARPS`` independent warps per block
(more resident warps than the one-warp programs' 32-block limit allows), the output from the loaded state or the
new one (``OUT_FROM_OLD``), the update as in ``gdn_decode_lean``; ``PER_ROW=1`` reduces and stores each row before the
next row's reductions, so a warp's stores leave as its rows arrive (Triton's block form, and ``PER_ROW=0``, store
nothing until all the warp's rows are in). fp32 throughout; results equal the reference's
to fp32 rounding (``__expf`` / ``__logf`` for the gates, as Triton's ``tl.exp`` / ``tl.log``).

The source is compiled at the first call for the running device with CuPy's NVRTC (``cupy.RawModule``; no
nvcc, no host compiler, ~1 s) and cached per process; the launch goes on PyTorch's current stream. Needs a CUDA
device and CuPy: there is no interpreter path (its checks run on the GPU: ``points.json`` has no CPU points).
``state`` may be ``None`` (zeros). Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, scale, output,
new_state)`` (DPS).
"""

import functools
from pathlib import Path

import torch

from .args import HEAD, NUM_V_HEADS, decode_args

PARAMS = {"R": 4, "LPR": 32, "WARPS": 1, "OUT_FROM_OLD": 1, "PER_ROW": 0}  # kernelopt:params

_SOURCE = Path(__file__).with_name("kernel.cu")
_DTYPES = {"q": torch.bfloat16, "k": torch.bfloat16, "v": torch.bfloat16, "state": torch.float32,
           "A_log": torch.float32, "a": torch.bfloat16, "dt_bias": torch.float32, "b": torch.bfloat16,
           "output": torch.bfloat16, "new_state": torch.float32}


@functools.cache
def _function(name: str, device_index: int):
    try:
        import cupy
    except ImportError as exc:
        raise RuntimeError(f"gdn_decode_cuda needs CuPy to compile its CUDA source with NVRTC: {exc}") from None
    with cupy.cuda.Device(device_index):
        module = cupy.RawModule(code=_SOURCE.read_text(), options=("-std=c++17",), name_expressions=(name,))
        return module.get_function(name)


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state) -> None:
    """Write the decode output ([B,1,8,128] bf16) and the updated k-last state ([B,8,128,128] fp32)."""
    rows, lpr, warps = int(PARAMS["R"]), int(PARAMS["LPR"]), int(PARAMS["WARPS"])
    if lpr not in (8, 16, 32) or rows < 32 // lpr or rows % (32 // lpr) or HEAD % rows:
        raise ValueError(f"gdn_decode_cuda: R={rows}, LPR={lpr}: LPR must be 8, 16 or 32 and 32 / LPR must "
                         f"divide R, which must divide {HEAD}")
    batch, q, k, v, state, a, b, scale = decode_args("gdn_decode_cuda", q, k, v, state, a, b, scale, output,
                                                     new_state)
    A_log, dt_bias = A_log.contiguous(), dt_bias.contiguous()
    tensors = {"q": q, "k": k, "v": v, "state": state, "A_log": A_log, "a": a, "dt_bias": dt_bias, "b": b,
               "output": output, "new_state": new_state}
    for name, t in tensors.items():  # raw pointers go to the kernel: a wrong dtype would be read as garbage
        if t is not None and t.dtype != _DTYPES[name]:
            raise ValueError(f"gdn_decode_cuda: {name} must be {_DTYPES[name]}, not {t.dtype}")
    for name, t in tensors.items():
        if t is not None and (not t.is_cuda or t.device != q.device):
            raise ValueError(f"gdn_decode_cuda: {name} must be on a CUDA device, the one q is on (got {t.device})")
    if batch == 0:
        return
    import numpy as np

    device = q.device
    name = (f"gdn_decode_cuda<{rows},{lpr},{int(PARAMS['OUT_FROM_OLD'])},{int(PARAMS['PER_ROW'])},"
            f"{int(state is not None)}>")
    fn = _function(name, device.index if device.index is not None else torch.cuda.current_device())
    total_warps = batch * NUM_V_HEADS * (HEAD // rows)
    ptr = [np.uint64(t.data_ptr()) for t in (q, k, v, state if state is not None else new_state, A_log, a,
                                            dt_bias, b, output, new_state)]
    import cupy

    stream = cupy.cuda.ExternalStream(torch.cuda.current_stream(device).cuda_stream, device.index or 0)
    fn(((total_warps + warps - 1) // warps,), (32 * warps,), (*ptr, np.float32(scale), np.int32(total_warps)),
       stream=stream)
