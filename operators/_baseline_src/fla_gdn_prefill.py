"""GDN prefill baseline: flash-linear-attention's chunked gated delta rule (fla-core 0.6.0).

Layout adaptation to ``gdn_prefill_qk4_v8_d128_k_last``:

* packed varlen batch: q/k/v/a/b get a leading batch axis of 1 and ``cu_seqlens`` (int64) marks the
  sequences (a CPU copy is passed too, so fla does not synchronise to build its chunk index).
* state: the definition's k-last ``[S, 8, V, K]`` is fla's ``state_v_first=True`` layout.
* gates: fla computes the log-decay ``g = -exp(A_log) * softplus(a + dt_bias)`` in fp32 in its
  gate/cumsum kernel (``use_gate_in_kernel``); ``beta = sigmoid(b)`` is computed here in fp32 (fla's
  in-kernel beta sigmoid would round beta to bf16).
* heads: fla's GVA maps v-head ``h`` to q/k head ``h // 2`` (= ``repeat_interleave(2)``).
* ``scale == 0`` means ``1/sqrt(128)``; ``use_qk_l2norm_in_kernel=False``; ``None`` state = zeros.
* the reference leaves ``new_state`` at zero for an empty sequence; fla would return its initial
  state, so empty sequences are zeroed here.

Value-returning: ``run(...) -> (output [N,8,128] bf16, new_state [S,8,128,128] fp32)``.
Needs a CUDA GPU (fla's kernels are Triton).
"""

import math

import torch
from fla.ops.gated_delta_rule import chunk_gated_delta_rule

HEAD_SIZE = 128


@torch.no_grad()
def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale):
    """fla chunked GDN prefill over a packed batch; returns ``(output, new_state)``."""
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD_SIZE)
    cu_cpu = cu_seqlens.to("cpu", torch.int64)
    cu = cu_seqlens.to(torch.int64)
    beta = torch.sigmoid(b.float())
    output, new_state = chunk_gated_delta_rule(
        q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0), g=a.unsqueeze(0), beta=beta.unsqueeze(0),
        scale=scale, initial_state=state, output_final_state=True,
        use_qk_l2norm_in_kernel=False,
        use_gate_in_kernel=True, A_log=A_log, dt_bias=dt_bias,
        state_v_first=True,
        cu_seqlens=cu, cu_seqlens_cpu=cu_cpu,
    )
    empty = (cu_cpu[1:] - cu_cpu[:-1]) <= 0
    if bool(empty.any()):
        new_state[empty.nonzero().flatten().to(new_state.device)] = 0.0
    return output.squeeze(0), new_state
