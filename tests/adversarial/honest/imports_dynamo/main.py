"""Honest RMSNorm that imports torch._dynamo at import, as fla and every torch.compile user do: torch then rebinds
torch.manual_seed to its own wrapper of it (torch._disable_dynamo), which is not tampering."""
import torch
import torch._dynamo  # noqa: F401


def run(hidden_states, weight):
    xf = hidden_states.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * weight.float()).to(hidden_states.dtype)
