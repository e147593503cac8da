"""Honest DPS RMSNorm. Keeps an fp32 scratch buffer between calls (legitimate: it is rewritten in
full every call, so new input values always give new outputs)."""
import torch

_SCRATCH = {}


def run(hidden_states, weight, output):
    key = tuple(hidden_states.shape)
    buf = _SCRATCH.get(key)
    if buf is None:
        buf = _SCRATCH[key] = torch.empty(key, dtype=torch.float32, device=hidden_states.device)
    buf.copy_(hidden_states)
    inv = torch.rsqrt(buf.pow(2).mean(-1, keepdim=True) + 1e-5)
    buf.mul_(inv).mul_(weight.float())
    output.copy_(buf)
