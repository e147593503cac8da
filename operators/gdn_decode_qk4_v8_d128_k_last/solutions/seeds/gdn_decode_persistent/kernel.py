"""Gated Delta Net single-token decode (4 q/k heads, 8 v heads, d=128, k-last state), persistent grid.

The same per-tile math as the ``gdn_decode_vtile`` seed (one [BV, 128] fp32 tile of the k-last state
``S[v, k]`` per step, all gate and delta-rule arithmetic in fp32):

    g = exp(-exp(A_log) * softplus(a + dt_bias)),  beta = sigmoid(b)
    S_old = g * S;  old_v = S_old @ k;  new_v = beta * v + (1 - beta) * old_v
    S_new = S_old + (new_v - old_v) outer k;  out = scale * (S_new @ q)

but a fixed grid of ``PROGRAMS_PER_SM`` programs per SM walks the B * 8 * (128 / BV) tiles in a
software-pipelined loop (``tl.range(..., num_stages=STAGES)``): a program issues the state load of its
next tile before it finishes and stores the current one, so DRAM reads and writes overlap and the last
wave has no tail of idle SMs. Aimed at batch 16-64, where the one-tile-per-program seed reaches only
0.60-0.77 of the memory roofline on the H200 (fla: 0.57-0.83; `benchmarks/results/headroom_gdn_decode_fla_h200.md`
says 0.85 is needed there for 1.10x over fla). Consecutive tiles of a program share a head when
BV < 128, so q, k and the gates come from L1/L2. ``state`` may be ``None`` (zeros, as in the reference).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state)`` (DPS).
"""

import math

import torch
import triton
import triton.language as tl

PARAMS = {"BV": 8, "num_warps": 1, "PROGRAMS_PER_SM": 16, "STAGES": 2}  # kernelopt:params

NUM_QK_HEADS = 4
NUM_V_HEADS = 8
HEAD = 128
_SMS: dict[int, int] = {}


@triton.jit
def _gdn_decode_persistent_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, out_ptr, new_state_ptr,
    scale, n_tiles,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, HAS_STATE: tl.constexpr,
    STAGES: tl.constexpr,
):
    NV: tl.constexpr = D // BV
    offs_k = tl.arange(0, D)
    offs_bv = tl.arange(0, BV)
    for tile in tl.range(tl.program_id(0), n_tiles, tl.num_programs(0), num_stages=STAGES):
        pid_bh = tile // NV
        i_b = pid_bh // HV
        i_hv = pid_bh % HV
        i_hqk = i_hv // (HV // HQK)
        offs_v = (tile % NV) * BV + offs_bv

        x = tl.load(a_ptr + pid_bh).to(tl.float32) + tl.load(dt_bias_ptr + i_hv).to(tl.float32)
        softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
        g = tl.exp(-tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32)) * softplus_x)
        beta = tl.sigmoid(tl.load(b_ptr + pid_bh).to(tl.float32))

        qk_base = (i_b * HQK + i_hqk).to(tl.int64) * D
        q = tl.load(q_ptr + qk_base + offs_k).to(tl.float32)
        k = tl.load(k_ptr + qk_base + offs_k).to(tl.float32)
        v = tl.load(v_ptr + pid_bh.to(tl.int64) * D + offs_v).to(tl.float32)

        tile_offs = pid_bh.to(tl.int64) * D * D + offs_v[:, None] * D + offs_k[None, :]
        if HAS_STATE:
            s = tl.load(state_ptr + tile_offs).to(tl.float32)
        else:
            s = tl.zeros([BV, D], dtype=tl.float32)

        s = g * s
        old_v = tl.sum(s * k[None, :], axis=1)
        new_v = beta * v + (1.0 - beta) * old_v
        s = s + (new_v - old_v)[:, None] * k[None, :]
        out = scale * tl.sum(s * q[None, :], axis=1)

        tl.store(new_state_ptr + tile_offs, s)
        tl.store(out_ptr + pid_bh.to(tl.int64) * D + offs_v, out.to(out_ptr.dtype.element_ty))


def _check(name: str, t: torch.Tensor, shape: tuple[int, ...], out: bool = False) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"gdn_decode_persistent: {name} has shape {tuple(t.shape)}, expected {shape}")
    if out and not t.is_contiguous():
        raise ValueError(f"gdn_decode_persistent: output tensor {name} must be contiguous")
    return t.contiguous()


def _num_sms(device: torch.device) -> int:
    """SMs of the device (cached); 4 on the CPU (the Triton interpreter), enough to walk several tiles each."""
    if device.type != "cuda":
        return 4
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SMS:
        _SMS[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SMS[idx]


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state) -> None:
    """Write the decode output ([B,1,8,128] bf16) and the updated k-last state ([B,8,128,128] fp32)."""
    bv = int(PARAMS["BV"])
    batch = q.shape[0]
    if HEAD % bv != 0:
        raise ValueError(f"gdn_decode_persistent: BV={bv} must divide {HEAD}")
    q = _check("q", q, (batch, 1, NUM_QK_HEADS, HEAD))
    k = _check("k", k, (batch, 1, NUM_QK_HEADS, HEAD))
    v = _check("v", v, (batch, 1, NUM_V_HEADS, HEAD))
    a = _check("a", a, (batch, 1, NUM_V_HEADS))
    b = _check("b", b, (batch, 1, NUM_V_HEADS))
    _check("output", output, (batch, 1, NUM_V_HEADS, HEAD), out=True)
    _check("new_state", new_state, (batch, NUM_V_HEADS, HEAD, HEAD), out=True)
    if state is not None:
        state = _check("state", state, (batch, NUM_V_HEADS, HEAD, HEAD))
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD)
    if batch == 0:
        return
    n_tiles = batch * NUM_V_HEADS * (HEAD // bv)
    grid = (min(n_tiles, _num_sms(q.device) * int(PARAMS["PROGRAMS_PER_SM"])),)
    _gdn_decode_persistent_kernel[grid](
        q, k, v, state if state is not None else new_state, A_log.contiguous(), a, dt_bias.contiguous(),
        b, output, new_state, scale, n_tiles,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, HAS_STATE=state is not None,
        STAGES=int(PARAMS["STAGES"]), num_warps=int(PARAMS["num_warps"]),
    )
