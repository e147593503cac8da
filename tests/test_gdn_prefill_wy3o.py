"""The GDN prefill seed ``gdn_prefill_chunked_wy3o`` (wy3h with the output's inter-chunk term formed by the state
walk, so the per-chunk states are never stored) against wy3h at the same point, bit for bit, and against the
operator's fp32 reference.

Cases: empty sequences first, in the middle and alone, ragged tail chunks, several chunks per sequence, with and
without an initial state, a non-default scale, output tiles wider and narrower than the walk's, fp32 scratch and
states, the full-chunk prep. Outputs are pre-filled with NaN: every element must be written. The seed runs the same
operations on the same values in the same order as wy3h (the walk's ``exp(gamma) Q S`` is the output kernel's
``exp(gamma) Q h[slot]``), so in the interpreter (no fused multiply-adds) the results must be equal; on a GPU the
compiler may contract wy3h's product and sum into one FMA, so there the check is the reference's tolerance and the
largest difference is reported.

The kernels run in a subprocess with ``TRITON_INTERPRET=1`` set before triton is imported (as in
tests/test_seeds.py); this file is also that subprocess's script: ``python tests/test_gdn_prefill_wy3o.py
[cpu|cuda]``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from operator_helpers import gdn_prefill_equal_to_seed, run_kernel_script, run_on_gpu

REPO = Path(__file__).resolve().parents[1]
PREFILL = "gdn_prefill_qk4_v8_d128_k_last"
SEEDS = REPO / "operators" / PREFILL / "solutions" / "seeds"
WY3O, WY3H = "gdn_prefill_chunked_wy3o", "gdn_prefill_chunked_wy3h"

# (label, params (both seeds), sequence lengths, options)
CASES: list[tuple[str, dict[str, Any], list[int], dict[str, Any]]] = [
    ("defaults_ragged", {}, [0, 5, 70], {}),
    ("c32_narrow_walk_wide_out", {"C": 32, "BV": 32, "BV_O": 128, "num_stages": 2}, [33, 0, 17, 1],
     {"no_state": True, "scale": 0.05}),
    ("wide_walk_narrow_out_fp32", {"BV": 128, "BV_O": 32, "INTER": "fp32", "STATES": "fp32"}, [130], {}),
    ("full_prep_fp32_states", {"PREP": "full", "num_warps": 8, "STATES": "fp32"}, [97, 64], {}),
    ("only_empty", {}, [0, 0], {}),
]


def test_wy3o_equals_wy3h_and_matches_reference_in_interpreter() -> None:
    res = run_kernel_script(Path(__file__), ["cpu"], "cpu", 900)
    assert [r["label"] for r in res] == [c[0] for c in CASES] + ["bad_chunk"]
    bad = [r for r in res if not r["ok"]]
    assert not bad, json.dumps(bad, indent=1)[:6000]


@pytest.mark.gpu
def test_wy3o_matches_reference_and_wy3h_on_gpu() -> None:
    res = run_on_gpu(Path(__file__), timeout=600)
    bad = [r for r in res if not r["ok"]]
    assert not bad, json.dumps(bad, indent=1)[:6000]


# --------------------------------------------------------------------------- subprocess side
def _check(device: str) -> list[dict[str, Any]]:
    return gdn_prefill_equal_to_seed(SEEDS / WY3O, SEEDS / WY3H, CASES, 1357, device, "PREP='halves' needs C >= 32")


if __name__ == "__main__":
    _device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    assert (_device == "cpu") == (os.environ.get("TRITON_INTERPRET") == "1"), "cpu runs need TRITON_INTERPRET=1"
    print(json.dumps(_check(_device)))
