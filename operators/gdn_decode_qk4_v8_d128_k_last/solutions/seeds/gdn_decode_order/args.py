"""Host-side argument checks of the GDN decode seeds (one place for a new decode seed's ``run``).

``decode_args`` checks the shapes of the decode's inputs and outputs ([B,1,4,128] q / k, [B,1,8,128] v, [B,1,8] a /
b, [B,1,8,128] output, [B,8,128,128] fp32 k-last state), makes the inputs contiguous, and resolves ``scale == 0``
to 1/sqrt(128), as the definition says. The older decode seeds (``gdn_decode_vtile`` and those built on it) carry
the same checks inline: their sources are keyed by content hash in measured traces and dispatches, so they stay.
"""

import math

NUM_QK_HEADS = 4
NUM_V_HEADS = 8
HEAD = 128


def _check(seed, name, t, shape, out=False):
    if tuple(t.shape) != shape:
        raise ValueError(f"{seed}: {name} has shape {tuple(t.shape)}, expected {shape}")
    if out and not t.is_contiguous():
        raise ValueError(f"{seed}: output tensor {name} must be contiguous")
    return t.contiguous()


def decode_args(seed, q, k, v, state, a, b, scale, output, new_state):
    """(batch, q, k, v, state or None, a, b, scale) checked and contiguous; ``seed`` names the caller in errors."""
    batch = q.shape[0]
    shapes = {"q": (batch, 1, NUM_QK_HEADS, HEAD), "k": (batch, 1, NUM_QK_HEADS, HEAD),
              "v": (batch, 1, NUM_V_HEADS, HEAD), "a": (batch, 1, NUM_V_HEADS), "b": (batch, 1, NUM_V_HEADS)}
    q, k, v, a, b = (_check(seed, name, t, shapes[name]) for name, t in zip(shapes, (q, k, v, a, b)))
    _check(seed, "output", output, (batch, 1, NUM_V_HEADS, HEAD), out=True)
    _check(seed, "new_state", new_state, (batch, NUM_V_HEADS, HEAD, HEAD), out=True)
    if state is not None:
        state = _check(seed, "state", state, (batch, NUM_V_HEADS, HEAD, HEAD))
    scale = float(scale) if scale is not None else 0.0
    if scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD)
    return batch, q, k, v, state, a, b, scale
