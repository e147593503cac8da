"""Computes the right answer, then zeroes the weight in place."""
import torch


def _rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float()).to(x.dtype)


def run(hidden_states, weight, output):
    output.copy_(_rms(hidden_states, weight))
    weight.zero_()
