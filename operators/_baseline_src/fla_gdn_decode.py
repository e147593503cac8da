"""GDN decode baseline: flash-linear-attention's fused recurrent gated delta rule (fla-core 0.6.0).

Layout adaptation to ``gdn_decode_qk4_v8_d128_k_last``:

* state: the definition keeps the k-last state ``[B, 8, V, K]``; fla's ``state_v_first=True`` reads
  and writes exactly that ``[N, HV, V, K]`` layout (no transpose copies).
* gates: fla computes ``g = -exp(A_log) * softplus(a + dt_bias)`` (log-decay) and ``sigmoid(b)``
  in fp32 inside the kernel (``use_gate_in_kernel``, ``use_beta_sigmoid_in_kernel``).
* heads: q/k have 4 heads, v 8; fla's GVA maps v-head ``h`` to q/k head ``h // 2``, the same as the
  reference's ``repeat_interleave(2)``.
* ``scale == 0`` means ``1/sqrt(128)``; ``use_qk_l2norm_in_kernel=False`` (the reference does not
  normalise). A ``None`` state means zeros, as in the reference.

Value-returning: ``run(...) -> (output [B,1,8,128] bf16, new_state [B,8,128,128] fp32)``.
Needs a CUDA GPU (fla's kernels are Triton).
"""

import math

import torch
from fla.ops.gated_delta_rule import fused_recurrent_gated_delta_rule

HEAD_SIZE = 128


@torch.no_grad()
def run(q, k, v, state, A_log, a, dt_bias, b, scale):
    """fla fused recurrent GDN decode step; returns ``(output, new_state)``."""
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD_SIZE)
    output, new_state = fused_recurrent_gated_delta_rule(
        q, k, v, g=a, beta=b, scale=scale,
        initial_state=state, output_final_state=True,
        use_qk_l2norm_in_kernel=False,
        use_gate_in_kernel=True, A_log=A_log, dt_bias=dt_bias,
        use_beta_sigmoid_in_kernel=True,
        state_v_first=True,
    )
    return output, new_state
