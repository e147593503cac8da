"""Rebinds torch.rsqrt at import to torch's own autocast wrapper around the original (its code is torch's and its
``__wrapped__`` is the very function the harness snapshot holds, as when torch._dynamo wraps torch.manual_seed),
so the reference computes under a bf16 autocast the candidate chose. Any torch-made wrapper but torch's own
_disable_dynamo rebinding is tampering."""
import torch

torch.rsqrt = torch.autocast("cuda" if torch.cuda.is_available() else "cpu", dtype=torch.bfloat16)(torch.rsqrt)


def run(hidden_states, weight):
    xf = hidden_states.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * weight.float()).to(hidden_states.dtype)
