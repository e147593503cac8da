"""Library fallback through an aliased ATen op and F.linear."""
import torch.nn.functional as F
from torch.ops import aten


def run(A, B):
    if A.shape[0] > 128:
        return F.linear(A, B)
    return aten.mm.default(A, B.t())
