"""``operators/_solution_lib/chunk_slots.py``: the chunk slot of every program and the first slot of every
sequence, checked against a Python count on packed batches with empty sequences, ragged tails, more sequences
than one block (small blocks here, so several steps per lookup) and spare slots past the last chunk.

The kernels run in a subprocess with ``TRITON_INTERPRET=1`` on a CPU-only machine (this file is that
subprocess's script: ``python tests/test_chunk_slots.py [cpu|cuda]``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from operator_helpers import run_kernel_script, run_on_gpu

REPO = Path(__file__).resolve().parents[1]
LIB = REPO / "operators" / "_solution_lib" / "chunk_slots.py"

# (label, sequence lengths, chunk C, block SB)
CASES: list[tuple[str, list[int], int, int]] = [
    ("one_sequence", [70], 16, 64),
    ("empties_and_tails", [0, 5, 0, 0, 33, 16, 1, 0], 16, 4),
    ("more_sequences_than_blocks", [(i * 7) % 5 for i in range(70)], 16, 64),
    ("many_small_blocks", [(i * 13) % 40 for i in range(37)], 32, 8),
    ("all_empty", [0, 0, 0], 16, 2),
]


def _expected(lens: list[int], chunk: int, n_slots: int) -> dict[str, list]:
    """Per slot (first token, end of its sequence, found); per sequence its first slot."""
    slots: list[tuple[int, int, bool]] = []
    firsts, start = [], 0
    for n in lens:
        firsts.append(len(slots))
        slots += [(start + j * chunk, start + n, True) for j in range(-(-n // chunk))]
        start += n
    slots += [(0, 0, False)] * (n_slots - len(slots))
    return {"c0": [s[0] for s in slots], "eos": [s[1] for s in slots], "found": [s[2] for s in slots],
            "first": firsts}


def test_chunk_slots_in_interpreter() -> None:
    res = run_kernel_script(Path(__file__), ["cpu"], "cpu", 600)
    assert [r["label"] for r in res] == [c[0] for c in CASES]
    bad = [r for r in res if r["got"] != r["want"]]
    assert not bad, json.dumps(bad)[:4000]


@pytest.mark.gpu
def test_chunk_slots_on_gpu() -> None:
    res = run_on_gpu(Path(__file__), timeout=600)
    bad = [r for r in res if r["got"] != r["want"]]
    assert not bad, json.dumps(bad)[:4000]


# --------------------------------------------------------------------------- subprocess side
def _check(device: str) -> list[dict[str, Any]]:
    import torch
    import triton
    import triton.language as tl

    spec = importlib.util.spec_from_file_location("chunk_slots_under_test", LIB)
    lib = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lib)
    # a jit function resolves the names it calls in its module's globals (not in a closure)
    globals().update(chunk_of_slot=lib.chunk_of_slot, first_slot=lib.first_slot)

    @triton.jit
    def probe(cu_ptr, n_seq, c0_ptr, eos_ptr, found_ptr, first_ptr, C: tl.constexpr, SB: tl.constexpr):
        pid = tl.program_id(0)
        c0, eos, found = chunk_of_slot(cu_ptr, n_seq, pid, C, SB)  # noqa: F821
        tl.store(c0_ptr + pid, c0)
        tl.store(eos_ptr + pid, eos)
        tl.store(found_ptr + pid, found.to(tl.int32))
        if pid < n_seq:
            tl.store(first_ptr + pid, first_slot(cu_ptr, pid, C, SB))  # noqa: F821

    results = []
    for label, lens, chunk, block in CASES:
        cu = torch.cumsum(torch.tensor([0, *lens], dtype=torch.int64), 0).to(torch.int32).to(device)
        n_seq = len(lens)
        n_slots = -(-sum(lens) // chunk) + n_seq  # as the wy3 kernels size their grids: spare slots at the end
        c0, eos, first = (torch.full((m,), -1, dtype=torch.int64, device=device) for m in (n_slots, n_slots, n_seq))
        found = torch.full((n_slots,), -1, dtype=torch.int32, device=device)
        probe[(n_slots,)](cu, n_seq, c0, eos, found, first, C=chunk, SB=block)
        got = {"c0": c0.tolist(), "eos": eos.tolist(), "found": [bool(x) for x in found.tolist()],
               "first": first.tolist()}
        want = _expected(lens, chunk, n_slots)
        got["c0"] = [c if f else 0 for c, f in zip(got["c0"], got["found"])]  # spare slots: only `found` counts
        got["eos"] = [e if f else 0 for e, f in zip(got["eos"], got["found"])]
        results.append({"label": label, "got": got, "want": want})
    return results


if __name__ == "__main__":
    _device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    assert (_device == "cpu") == (os.environ.get("TRITON_INTERPRET") == "1"), "cpu runs need TRITON_INTERPRET=1"
    print(json.dumps(_check(_device)))
