"""Runs a shell command from the kernel (e.g. to edit files or lock clocks)."""
import subprocess

import torch


def _rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float()).to(x.dtype)


def run(hidden_states, weight):
    subprocess.run(["true"], check=False)
    return _rms(hidden_states, weight)
