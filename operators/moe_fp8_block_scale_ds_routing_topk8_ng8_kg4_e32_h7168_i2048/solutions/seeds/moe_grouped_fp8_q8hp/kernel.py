"""DeepSeek-V3 FP8 block-scale MoE: the retained ``moe_grouped_fp8_q8tw`` seed (``q8tw.py``, over ``q8tc.py``,
``q8td.py``, ``q8ex.py``, ``q8rt.py``, ``q8.py`` and ``base.py``) with its long calls' host side as one plan per
call shape (``long_plan.py``, ``HOST_PATH="lean"``): the same kernels, grids and arguments, issued with less host
work between them.

Why. The span anatomy of the retained dispatch on the H200 (2026-12-02 call CH,
``benchmarks/results/span_anatomy_h200_moe_retained_host_ch.md``): at 11,948 / 14,107 tokens the host spends 400 /
467 us per call and the GPU idles 36-39 us before the count-and-plan launch (the routing kernel ends first while the
host allocates the sort's buffers and passes its launch through three wrapper layers) and 76-84 us before GEMM1 (the
host waits for the tile table, copies it to pageable memory, allocates, and sends GEMM1 through the layers again);
at 901 tokens (the bound grid: no sync) 54 us before count-and-plan and 18 us before GEMM1. Under cProfile 9-12
``torch.empty`` calls and the six launches' argument binding and specialisation keys take most of the host's time.

``HOST_PATH="lean"``: calls of more than ``TILES_MAX_PAIRS`` routed pairs (with ``TMA=1``, ``A_SORTED=0``,
``PERSIST=0``, ``LONG_TILES="triton"``: the retained long points) run through a plan kept per (tokens, device,
stream, parameters, the arguments' specialisation): every buffer allocated once (the bf16 rows only under
``Y_BF16``: q8ex also allocates the fp32 ones), each launch's constexprs bound once and sent to the compiled kernel's
launcher, the exact grid's count read from a pinned copy of the tile table after one event, the tensor descriptors'
global scratch one buffer per device and stream. ``HOST_PATH="layered"`` is q8tw as it is (and every other call is).
"""

import torch
import triton

from . import q8tw as _tw
from .base import (
    _INTERPRET,
    COMBINE_BLOCK_H,
    N_GROUP,
    NUM_EXPERTS,
    NUM_LOCAL,
    SCALE_BLOCK,
    TILES_MAX_PAIRS,
    TOP_K,
    TOPK_GROUP,
    _combine_kernel,
    _route_kernel,
)
from .fastlaunch import spec
from .long_plan import LongPlan, LongPlans

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 4, "LAUNCH": "fast", "FUSE_TILES": 1, "LONG_TILES": "triton", "LONG_GRID": "exact", "Y_BF16": 1, "TMA": 1, "A_SORTED": 0, "PERSIST": 0, "NUM_WARPS2": 4, "ROUTE_WARPS": 1, "HOST_PATH": "lean"}  # kernelopt:params

_tc = _tw._tc
_td = _tc._td
_ex = _td._ex
_rt = _ex._rt
_q8 = _ex._q8
# this package's own copies of q8tw, q8tc, q8td, q8ex, q8rt and q8 read this seed's PARAMS
for _module in (_tw, _tc, _td, _ex, _rt, _q8):
    _module.PARAMS = PARAMS

_KERNELS = {"route": _route_kernel, "count_plan": _rt._count_plan_kernel, "place": _rt._place_kernel,
            "gemm1": _td._gemm1_swiglu_td_kernel, "gemm2": _tw._gemm2_tw_kernel, "combine": _combine_kernel,
            "counter": _rt._count}
PLANS = LongPlans()
_SCRATCH: dict = {}


def _scratch(size: int, alignment: int, stream) -> torch.Tensor:
    """The descriptor kernels' global scratch: one buffer per device and stream, grown when a launch needs more (a
    stream's launches run in turn, so one launch's descriptors are done before the next one's are written)."""
    key = (torch.cuda.current_device(), stream)
    buf = _SCRATCH.get(key)
    if buf is None or buf.numel() < size:
        buf = _SCRATCH[key] = torch.empty(max(size, 1 << 16), dtype=torch.int8, device="cuda")
    return buf


def _lean(t: int) -> bool:
    """The call runs through a plan: ``HOST_PATH="lean"``, a long call, and the long points the plan issues."""
    path = PARAMS["HOST_PATH"]
    if path not in ("lean", "layered"):
        raise ValueError(f"moe_grouped_fp8_q8hp: HOST_PATH={path!r} must be 'lean' or 'layered'")
    return (path == "lean" and t * TOP_K > TILES_MAX_PAIRS and int(PARAMS["TMA"]) == 1
            and int(PARAMS["A_SORTED"]) == 0 and float(PARAMS["PERSIST"]) == 0
            and PARAMS["LONG_TILES"] == "triton" and PARAMS["LONG_GRID"] in ("exact", "bound"))


def _config(hidden: int, inter: int) -> dict:
    """The plan's sizes and parameters as plain values (checked as q8's and q8tw's entry points check them)."""
    bm, bn1, bn2 = int(PARAMS["BLOCK_M"]), int(PARAMS["BLOCK_N"]), int(PARAMS["BLOCK_N2"])
    if SCALE_BLOCK % bn1 or inter % bn1 or hidden % bn2:
        raise ValueError(f"moe_grouped_fp8_q8hp: BLOCK_N={bn1} must divide {SCALE_BLOCK} (one W2 scale block per "
                         f"K step of GEMM2), BLOCK_N2={bn2} must divide {hidden}")
    for key in ("NUM_WARPS2", "ROUTE_WARPS"):
        if int(PARAMS[key]) not in (0, 1, 2, 4, 8):
            raise ValueError(f"moe_grouped_fp8_q8hp: {key}={PARAMS[key]!r} must be 0 (the call's), 1, 2, 4 or 8")
    nw = int(PARAMS["num_warps"])
    return {"TOPK": TOP_K, "BLOCK_M": bm, "BLOCK_N": bn1, "BLOCK_N2": bn2, "H": hidden, "I": inter,
            "CHUNK": _rt.CHUNK, "KEYS": _rt.KEYS, "TILE_BLOCK": _rt.TILE_BLOCK, "NUM_LOCAL": NUM_LOCAL,
            "E_ALL": NUM_EXPERTS, "NG": N_GROUP, "KG": TOPK_GROUP, "SCALE_BLOCK": SCALE_BLOCK, "QMAX": _q8.FP8_MAX,
            "COMBINE_BLOCK_H": COMBINE_BLOCK_H, "INTERPRET": _INTERPRET, "num_warps": nw,
            "num_stages": int(PARAMS["num_stages"]), "NUM_WARPS2": int(PARAMS["NUM_WARPS2"]) or nw,
            "ROUTE_WARPS": int(PARAMS["ROUTE_WARPS"]) or 4, "Y_BF16": int(PARAMS["Y_BF16"]),
            "LONG_GRID": PARAMS["LONG_GRID"]}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    t = routing_logits.shape[0]
    hidden, inter = hidden_states.shape[1], gemm2_weights.shape[2]
    if not _lean(t) or (hidden_states.shape != (t, hidden) or output.shape != (t, hidden)
                        or gemm1_weights.shape != (NUM_LOCAL, 2 * inter, hidden)
                        or gemm2_weights.shape != (NUM_LOCAL, hidden, inter)
                        or hidden % SCALE_BLOCK or inter % SCALE_BLOCK):
        _tw.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
                gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
        return  # q8tw's path (and its messages for shapes this definition does not have)
    args = (routing_logits.contiguous(), routing_bias.contiguous(), hidden_states.contiguous(),
            hidden_states_scale.float().contiguous(), gemm1_weights.contiguous(),
            gemm1_weights_scale.float().contiguous(), gemm2_weights.contiguous(),
            gemm2_weights_scale.float().contiguous())
    offset, scale = int(local_expert_offset), float(routed_scaling_factor)
    dev = hidden_states.device
    cuda = dev.type == "cuda"
    stream = torch.cuda.current_stream(dev).cuda_stream if cuda else 0
    key = (t, dev, stream, tuple(PARAMS.values()), spec(offset), spec(output),
           *(spec(a) for a in args), *(a.shape for a in args))
    plan = PLANS.get(key, lambda: LongPlan(t, dev, _config(hidden, inter), _KERNELS))
    if cuda and not _INTERPRET:
        triton.set_allocator(_scratch)  # a context variable: set in the calling thread's context, every call
    plan(*args, offset, scale, output)
