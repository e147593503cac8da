"""Gated Delta Net single-token decode (k-last state) with L2 eviction priorities on the state stream.

The per-tile math and grid of the ``gdn_decode_vtile`` seed (``base.py``; one program per (batch,
v-head, BV-row V tile), the [BV, 128] fp32 state tile in registers, gates and the delta rule in fp32),
with the cache policy of the two state streams as parameters:

* ``LOAD_POLICY`` - the state tile's load: ``""`` (default) or ``"evict_first"``. Each state byte is
  read once, so an evict-first line is the L2's first victim when the new state's stores need room,
  instead of the dirty lines the harness's cold-L2 flush (a zeroed 2 x L2 buffer) left behind, whose
  eviction costs a DRAM write inside the timed window.
* ``STORE_POLICY`` - the new state's store: ``""``, ``"evict_first"`` (streaming: written back early)
  or ``"evict_last"`` (kept in L2 as long as possible).

At batch 32-64 the state stream is 16-32 MiB each way against a 60 MiB L2; the vtile seed and
flash-linear-attention reach 0.75-0.83 of the memory roofline there, and 1.10x over fla needs 0.85
(`benchmarks/results/headroom_gdn_decode_fla_h200.md`). `benchmarks/decode_copy_ceiling.py` measures
these policies beside a plain copy of the same bytes under the same timing. Results are the vtile
seed's, bit for bit (a cache hint changes no arithmetic). ``state`` may be ``None`` (zeros).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state)`` (DPS).
"""

import math

import triton
import triton.language as tl

from .base import HEAD, NUM_QK_HEADS, NUM_V_HEADS, _check

PARAMS = {"BV": 8, "num_warps": 1, "LOAD_POLICY": "evict_first", "STORE_POLICY": ""}  # kernelopt:params

POLICIES = ("", "evict_first", "evict_last")


@triton.jit
def _gdn_decode_stream_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr, a_log_ptr, a_ptr, dt_bias_ptr, b_ptr, out_ptr, new_state_ptr,
    scale,
    HQK: tl.constexpr, HV: tl.constexpr, D: tl.constexpr, BV: tl.constexpr, HAS_STATE: tl.constexpr,
    LOAD_POLICY: tl.constexpr, STORE_POLICY: tl.constexpr,
):
    pid_v = tl.program_id(0)
    pid_bh = tl.program_id(1)
    i_hv = pid_bh % HV
    i_hqk = i_hv // (HV // HQK)
    offs_k = tl.arange(0, D)
    offs_v = pid_v * BV + tl.arange(0, BV)

    # the state load first: its DRAM latency overlaps the gate and q/k/v loads below
    tile = pid_bh.to(tl.int64) * D * D + offs_v[:, None] * D + offs_k[None, :]
    if HAS_STATE:
        s = tl.load(state_ptr + tile, eviction_policy=LOAD_POLICY).to(tl.float32)
    else:
        s = tl.zeros([BV, D], dtype=tl.float32)

    x = tl.load(a_ptr + pid_bh).to(tl.float32) + tl.load(dt_bias_ptr + i_hv).to(tl.float32)
    softplus_x = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
    g = tl.exp(-tl.exp(tl.load(a_log_ptr + i_hv).to(tl.float32)) * softplus_x)
    beta = tl.sigmoid(tl.load(b_ptr + pid_bh).to(tl.float32))
    qk_base = ((pid_bh // HV) * HQK + i_hqk).to(tl.int64) * D
    q = tl.load(q_ptr + qk_base + offs_k).to(tl.float32)
    k = tl.load(k_ptr + qk_base + offs_k).to(tl.float32)
    v = tl.load(v_ptr + pid_bh.to(tl.int64) * D + offs_v).to(tl.float32)

    s = g * s
    old_v = tl.sum(s * k[None, :], axis=1)
    new_v = beta * v + (1.0 - beta) * old_v
    s = s + (new_v - old_v)[:, None] * k[None, :]
    out = scale * tl.sum(s * q[None, :], axis=1)

    tl.store(new_state_ptr + tile, s, eviction_policy=STORE_POLICY)
    tl.store(out_ptr + pid_bh.to(tl.int64) * D + offs_v, out.to(out_ptr.dtype.element_ty))


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state) -> None:
    """Write the decode output ([B,1,8,128] bf16) and the updated k-last state ([B,8,128,128] fp32)."""
    bv = int(PARAMS["BV"])
    load_policy, store_policy = str(PARAMS["LOAD_POLICY"]), str(PARAMS["STORE_POLICY"])
    if HEAD % bv != 0:
        raise ValueError(f"gdn_decode_stream: BV={bv} must divide {HEAD}")
    for name, policy in (("LOAD_POLICY", load_policy), ("STORE_POLICY", store_policy)):
        if policy not in POLICIES:
            raise ValueError(f"gdn_decode_stream: {name}={policy!r} is not one of {POLICIES}")
    batch = q.shape[0]
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
    _gdn_decode_stream_kernel[(HEAD // bv, batch * NUM_V_HEADS)](
        q, k, v, state if state is not None else new_state, A_log.contiguous(), a, dt_bias.contiguous(),
        b, output, new_state, scale,
        HQK=NUM_QK_HEADS, HV=NUM_V_HEADS, D=HEAD, BV=bv, HAS_STATE=state is not None,
        LOAD_POLICY=load_policy, STORE_POLICY=store_policy, num_warps=int(PARAMS["num_warps"]),
    )
