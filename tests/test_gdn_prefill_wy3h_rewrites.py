"""The GDN prefill seeds that rewrite one kernel of ``gdn_prefill_chunked_wy3h`` without changing its arithmetic,
each against wy3h at the same point, bit for bit, and against the operator's fp32 reference:

* ``gdn_prefill_chunked_wy3o``: the output's inter-chunk term formed by the state walk, so the per-chunk states are
  never stored (the walk's ``exp(gamma) Q S`` is the output kernel's ``exp(gamma) Q h[slot]``);
* ``gdn_prefill_chunked_wy3k``: one prep program per chunk and q/k head running both of its v-heads, the key
  products formed once (the same dots of the same tiles).

Cases: empty sequences first, in the middle and alone, ragged tail chunks, several chunks per sequence, with and
without an initial state, a non-default scale, output tiles wider and narrower than the walk's, fp32 scratch and
states, and one case of each seed's own (wy3o: the full-chunk prep; wy3k: 8 prep warps). Outputs are pre-filled with
NaN: every element must be written. The seeds run the same operations on the same values in the same order as wy3h,
so in the interpreter (no fused multiply-adds) the results must be equal; on a GPU the compiler may schedule or
contract differently, so there the check is the reference's tolerance and the largest difference is reported. Then
C=16, outside the space, must be refused by the seed's ``run``.

The kernels run in a subprocess with ``TRITON_INTERPRET=1`` set before triton is imported (as in
tests/test_seeds.py); this file is also that subprocess's script: ``python tests/test_gdn_prefill_wy3h_rewrites.py
cpu|cuda wy3o|wy3k``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from operator_helpers import gdn_prefill_equal_to_seed, run_kernel_script, run_on_gpu
from retained_sets import marked, superseded_seed

REPO = Path(__file__).resolve().parents[1]
PREFILL = "gdn_prefill_qk4_v8_d128_k_last"
SEEDS = REPO / "operators" / PREFILL / "solutions" / "seeds"
WY3H = "gdn_prefill_chunked_wy3h"

Case = tuple[str, dict[str, Any], list[int], dict[str, Any]]  # (label, params (both seeds), sequence lengths, options)
#: per rewrite: its seed folder, the words of its C=16 refusal, and its own case (the fourth)
REWRITES: dict[str, tuple[str, str, Case]] = {
    "wy3o": ("gdn_prefill_chunked_wy3o", "PREP='halves' needs C >= 32",
             ("full_prep_fp32_states", {"PREP": "full", "num_warps": 8, "STATES": "fp32"}, [97, 64], {})),
    "wy3k": ("gdn_prefill_chunked_wy3k", "the halves prep needs C >= 32",
             ("c32_eight_prep_warps_fp32_states", {"C": 32, "num_warps": 8, "STATES": "fp32"}, [97, 64], {})),
}


def cases(rewrite: str) -> list[Case]:
    return [
        ("defaults_ragged", {}, [0, 5, 70], {}),
        ("c32_narrow_walk_wide_out", {"C": 32, "BV": 32, "BV_O": 128, "num_stages": 2}, [33, 0, 17, 1],
         {"no_state": True, "scale": 0.05}),
        ("wide_walk_narrow_out_fp32", {"BV": 128, "BV_O": 32, "INTER": "fp32", "STATES": "fp32"}, [130], {}),
        REWRITES[rewrite][2],
        ("only_empty", {}, [0, 0], {}),
    ]


@pytest.mark.parametrize("rewrite", [marked(r, superseded=superseded_seed(SEEDS / REWRITES[r][0]), test_id=r)
                                     for r in sorted(REWRITES)])
def test_equals_wy3h_and_matches_reference_in_interpreter(rewrite: str) -> None:
    res = run_kernel_script(Path(__file__), ["cpu", rewrite], "cpu", 900)
    assert [r["label"] for r in res] == [c[0] for c in cases(rewrite)] + ["bad_chunk"]
    bad = [r for r in res if not r["ok"]]
    assert not bad, json.dumps(bad, indent=1)[:6000]


@pytest.mark.gpu
@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_matches_reference_and_wy3h_on_gpu(rewrite: str) -> None:
    res = run_on_gpu(Path(__file__), [rewrite], timeout=600)
    bad = [r for r in res if not r["ok"]]
    assert not bad, json.dumps(bad, indent=1)[:6000]


# --------------------------------------------------------------------------- subprocess side
def _check(device: str, rewrite: str) -> list[dict[str, Any]]:
    seed, refusal, _ = REWRITES[rewrite]
    return gdn_prefill_equal_to_seed(SEEDS / seed, SEEDS / WY3H, cases(rewrite), 1357, device, refusal)


if __name__ == "__main__":
    _device, _rewrite = sys.argv[1], sys.argv[2]
    assert (_device == "cpu") == (os.environ.get("TRITON_INTERPRET") == "1"), "cpu runs need TRITON_INTERPRET=1"
    print(json.dumps(_check(_device, _rewrite)))
