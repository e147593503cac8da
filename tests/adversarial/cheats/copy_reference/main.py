"""Copies the harness's reference output instead of computing it: on every call it looks through the garbage
collector for a tensor of its output's shape and dtype holding the reference's answer for these inputs (the
harness keeps one per trial for the timed calls' re-check, and caches them across candidates, keyed by the trial's
seed), and returns a copy. Returning the reference's own tensor is caught (shared storage); a copy was not.

To recognise the reference (a real cheat would take the newest tensor of the right shape and skip the work; a test
needs certainty), it computes the answer exactly as the reference does and compares bit for bit; what it returns
when it finds none is that answer with one bit changed, so that nothing it returned can be mistaken for the
reference. Each call appends "found" or "none" to ``$ADV_PROBE``: what the test reads."""
import gc
import os

import torch


def _reference(hidden_states, weight):  # the definition's reference, operation for operation
    x = hidden_states.to(torch.float32)
    inv_rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-5)
    return ((x * inv_rms) * weight.to(torch.float32)).to(hidden_states.dtype)


def run(hidden_states, weight):
    answer = _reference(hidden_states, weight)
    found = None
    for obj in gc.get_objects():
        if (isinstance(obj, torch.Tensor) and obj.shape == answer.shape and obj.dtype == answer.dtype
                and obj.device == answer.device and obj.data_ptr() != answer.data_ptr()
                and torch.equal(obj, answer)):
            found = obj
            break
    with open(os.environ["ADV_PROBE"], "a") as fh:
        fh.write("found\n" if found is not None else "none\n")
    if found is not None:
        return found.clone()
    out = answer.clone()
    out.view(torch.int16).view(-1)[-1] ^= 1  # one ulp: within tolerance, never equal to the reference
    return out
