"""Precision downcast hidden under the absolute tolerance: outputs smaller than 0.125 in magnitude
are produced in fp8 (e4m3, 3 mantissa bits) and dressed up as bf16. Their error stays below the
contest's atol=0.01, so the official check passes; the precision probe (1 bf16 ulp) does not."""
import torch


def run(hidden_states, weight):
    xf = hidden_states.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * weight.float()
    low = y.to(torch.float8_e4m3fn).float()
    return torch.where(y.abs() < 0.125, low, y).to(torch.bfloat16)
