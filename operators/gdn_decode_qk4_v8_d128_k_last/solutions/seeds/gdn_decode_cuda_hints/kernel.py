"""Gated Delta Net single-token decode (k-last state) as a CUDA C++ kernel (``kernel.cu``), compiled with NVRTC:
``gdn_decode_cuda``'s kernel with cache-policy knobs on the state stream.

``R`` V rows per warp, ``LPR`` lanes per row, ``WARPS`` warps per block, ``OUT_FROM_OLD``, ``PER_ROW`` as in
``gdn_decode_cuda`` (whose source stays as it is: its measured tables and dispatches are keyed by its content hash);
``LOAD_CS`` = 1 reads the state with ``ld.global.cs`` and ``STORE_CS`` = 1 writes the new state with
``st.global.cs`` (PTX's streaming, evict-first policy: the state is read once and written once per call, so its
lines need not stay in L2). With both at 0 the kernel is ``gdn_decode_cuda``'s.

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

PARAMS = {"R": 4, "LPR": 32, "WARPS": 1, "OUT_FROM_OLD": 1, "PER_ROW": 0, "LOAD_CS": 0, "STORE_CS": 0}  # kernelopt:params

_SOURCE = Path(__file__).with_name("kernel.cu")
_DTYPES = {"q": torch.bfloat16, "k": torch.bfloat16, "v": torch.bfloat16, "state": torch.float32,
           "A_log": torch.float32, "a": torch.bfloat16, "dt_bias": torch.float32, "b": torch.bfloat16,
           "output": torch.bfloat16, "new_state": torch.float32}


@functools.cache
def _function(name: str, device_index: int):
    try:
        import cupy
    except ImportError as exc:
        raise RuntimeError(f"gdn_decode_cuda_hints needs CuPy to compile its CUDA source with NVRTC: {exc}") from None
    with cupy.cuda.Device(device_index):
        module = cupy.RawModule(code=_SOURCE.read_text(), options=("-std=c++17",), name_expressions=(name,))
        return module.get_function(name)


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state) -> None:
    """Write the decode output ([B,1,8,128] bf16) and the updated k-last state ([B,8,128,128] fp32)."""
    rows, lpr, warps = int(PARAMS["R"]), int(PARAMS["LPR"]), int(PARAMS["WARPS"])
    if lpr not in (8, 16, 32) or rows < 32 // lpr or rows % (32 // lpr) or HEAD % rows:
        raise ValueError(f"gdn_decode_cuda_hints: R={rows}, LPR={lpr}: LPR must be 8, 16 or 32 and 32 / LPR must "
                         f"divide R, which must divide {HEAD}")
    batch, q, k, v, state, a, b, scale = decode_args("gdn_decode_cuda_hints", q, k, v, state, a, b, scale, output,
                                                     new_state)
    A_log, dt_bias = A_log.contiguous(), dt_bias.contiguous()
    tensors = {"q": q, "k": k, "v": v, "state": state, "A_log": A_log, "a": a, "dt_bias": dt_bias, "b": b,
               "output": output, "new_state": new_state}
    for name, t in tensors.items():  # raw pointers go to the kernel: a wrong dtype would be read as garbage
        if t is not None and t.dtype != _DTYPES[name]:
            raise ValueError(f"gdn_decode_cuda_hints: {name} must be {_DTYPES[name]}, not {t.dtype}")
    for name, t in tensors.items():
        if t is not None and (not t.is_cuda or t.device != q.device):
            raise ValueError(f"gdn_decode_cuda_hints: {name} must be on a CUDA device, the one q is on "
                             f"(got {t.device})")
    if batch == 0:
        return
    import numpy as np

    device = q.device
    flags = ",".join(str(int(PARAMS[p])) for p in ("OUT_FROM_OLD", "PER_ROW", "LOAD_CS", "STORE_CS"))
    name = f"gdn_decode_cuda_hints<{rows},{lpr},{flags},{int(state is not None)}>"
    fn = _function(name, device.index if device.index is not None else torch.cuda.current_device())
    total_warps = batch * NUM_V_HEADS * (HEAD // rows)
    ptr = [np.uint64(t.data_ptr()) for t in (q, k, v, state if state is not None else new_state, A_log, a,
                                            dt_bias, b, output, new_state)]
    import cupy

    stream = cupy.cuda.ExternalStream(torch.cuda.current_stream(device).cuda_stream, device.index or 0)
    fn(((total_warps + warps - 1) // warps,), (32 * warps,), (*ptr, np.float32(scale), np.int32(total_warps)),
       stream=stream)
