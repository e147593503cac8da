"""Chunk slots of a packed variable-length batch, found inside a Triton kernel without a host sync, a block of
sequences at a time.

A solution carries this file in its sources (seed folders link it as ``chunk_slots.py``); it imports triton only.
Chunked kernels over ``cu_seqlens`` (``S + 1`` offsets of ``S`` sequences packed along one token axis) number
the chunks of ``C`` tokens of sequence ``i`` after the ``sum_{j<i} ceil(len_j / C)`` chunks of the sequences
before it, and give each chunk a program. Each program then has to find its chunk (or each sequence its first
slot). A loop over the sequences, one offset pair at a time, is a chain of dependent loads per program, as long
as the batch has sequences (57 in the contest's 8,192-token workloads). Here each step loads a block of ``SB``
offsets at once and resolves the block with a cumulative sum: one step for batches of up to ``SB`` sequences.
"""

import triton
import triton.language as tl


@triton.jit
def chunk_of_slot(cu_ptr, n_seq, slot, C: tl.constexpr, SB: tl.constexpr = 64):
    """``(first token, end token of its sequence, found)`` of chunk slot ``slot``; ``found`` is false for the
    spare slots past the last chunk (their program has nothing to do)."""
    offs = tl.arange(0, SB)
    before = slot * 0  # chunks of the blocks already scanned
    c0 = (slot * 0).to(tl.int64)
    eos = (slot * 0).to(tl.int64)
    hits = slot * 0
    for s0 in range(0, n_seq, SB):
        idx = s0 + offs
        live = idx < n_seq
        lo = tl.load(cu_ptr + idx, mask=live, other=0).to(tl.int64)
        hi = tl.load(cu_ptr + idx + 1, mask=live, other=0).to(tl.int64)
        n = ((hi - lo + C - 1) // C).to(tl.int32)  # 0 for empty sequences and lanes past n_seq
        ends = before + tl.cumsum(n, axis=0)
        starts = ends - n
        here = (slot >= starts) & (slot < ends)  # at most one lane of all blocks
        c0 += tl.sum(tl.where(here, lo + (slot - starts).to(tl.int64) * C, 0), axis=0)
        eos += tl.sum(tl.where(here, hi, 0), axis=0)
        hits += tl.sum(here.to(tl.int32), axis=0)
        before += tl.sum(n, axis=0)
    return c0, eos, hits > 0


@triton.jit
def first_slot(cu_ptr, seq, C: tl.constexpr, SB: tl.constexpr = 64):
    """Slot of sequence ``seq``'s first chunk: ``sum_{j < seq} ceil(len_j / C)`` (int64)."""
    offs = tl.arange(0, SB)
    total = (seq * 0).to(tl.int64)
    for s0 in range(0, seq, SB):
        idx = s0 + offs
        live = idx < seq
        lo = tl.load(cu_ptr + idx, mask=live, other=0).to(tl.int64)
        hi = tl.load(cu_ptr + idx + 1, mask=live, other=0).to(tl.int64)
        total += tl.sum((hi - lo + C - 1) // C, axis=0)
    return total
