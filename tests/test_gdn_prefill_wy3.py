"""The three-kernel GDN prefill seed ``gdn_prefill_chunked_wy3`` against the operator's fp32 reference and the
two-kernel ``gdn_prefill_chunked_wy`` seed whose prep kernel it reuses (``base.py``).

Cases: empty sequences first, in the middle and alone (no tokens at all), lengths that are and are not
multiples of the chunk C (ragged tail chunks, one-token sequences), several chunks per sequence (the start
state stored per chunk slot in ``h`` must be the state *before* that chunk), with and without an initial
state, a non-default scale, non-default V tiles of both kernels and tf32x3. Outputs are pre-filled with NaN:
every element must be written. The references run in fp32 (the Triton interpreter computes bf16 arithmetic
wrongly; the seeds upcast to fp32 before any arithmetic).

The kernels run in a subprocess with ``TRITON_INTERPRET=1`` set before triton is imported (as in
tests/test_seeds.py); this file is also that subprocess's script: ``python tests/test_gdn_prefill_wy3.py
[cpu|cuda]``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from operator_helpers import (
    fib_close,
    gdn_prefill_call,
    gdn_prefill_cases,
    run_kernel_script,
    run_on_gpu,
    seed_entry,
)
from retained_sets import superseded_if, superseded_seed

REPO = Path(__file__).resolve().parents[1]
PREFILL = "gdn_prefill_qk4_v8_d128_k_last"
SEEDS = REPO / "operators" / PREFILL / "solutions" / "seeds"
NEW, BASE = "gdn_prefill_chunked_wy3", "gdn_prefill_chunked_wy"
FAST = "gdn_prefill_chunked_wy3f"  # wy3's kernels through fast launches: on a GPU, bit for bit wy3's results
VEC = "gdn_prefill_chunked_wy3v"  # wy3's math with chunk slots found 64 sequences a step: bit for bit wy3's results
PER = "gdn_prefill_chunked_wy3p"  # wy3v with each kernel's own warps: bit for bit in the interpreter, tf32 on a GPU
LOW = "gdn_prefill_chunked_wy3b"  # bf16 scratch and dots after the prep; INTER=fp32: wy3p's arithmetic

# (label, params of the new seed (the WY seed runs at the same C, BV, num_warps, PRECISION), sequence lengths,
#  options: "no_state" passes state=None, "scale" a non-default scale)
CASES: list[tuple[str, dict[str, Any], list[int], dict[str, Any]]] = [
    ("defaults_ragged", {}, [0, 5, 70], {}),
    ("c16_ragged", {"C": 16, "BV": 64, "BV_O": 32, "num_warps": 4, "num_warps_o": 4}, [0, 5, 70], {}),
    ("c16_no_state_scale", {"C": 16, "BV": 16, "BV_O": 128, "num_warps": 2, "num_warps_o": 8,
                            "PRECISION": "tf32x3"}, [33, 0, 17, 1], {"no_state": True, "scale": 0.05}),
    ("c32_exact_chunks", {"C": 32, "BV": 128, "BV_O": 16, "num_warps": 8, "num_warps_o": 8}, [64, 32], {}),
    ("only_empty", {"C": 16}, [0, 0], {}),
]


@superseded_if(superseded_seed(SEEDS / NEW))  # wy3 and wy are frozen: make test-all and the GPU suite check them
def test_wy3_matches_reference_and_wy_in_interpreter() -> None:
    res = run_kernel_script(Path(__file__), ["cpu"], "cpu", 600)
    assert [r["label"] for r in res] == [c[0] for c in CASES]
    bad = [r for r in res if not r["ok"]]
    assert not bad, json.dumps(bad, indent=1)[:6000]


@pytest.mark.gpu
def test_wy3_matches_reference_and_wy_on_gpu() -> None:
    res = run_on_gpu(Path(__file__), timeout=600)
    bad = [r for r in res if not r["ok"]]
    assert not bad, json.dumps(bad, indent=1)[:6000]


# --------------------------------------------------------------------------- subprocess side
def _entry(seed_name: str, params: dict[str, Any]):
    """The seed's ``run`` at ``params`` (over its defaults), imported as the harness does."""
    return seed_entry(SEEDS / seed_name, params)


def _check(device: str) -> list[dict[str, Any]]:
    import torch

    results = []
    for label, params, lens, dev_inputs, ref_out, ref_state in gdn_prefill_cases(CASES, 4321, device):
        got = {}
        # on a GPU, wy3f twice: its second call goes through the compiled launchers (the interpreter always takes
        # the JIT path, so there it would only repeat wy3; its interpreter points are in tests/test_seeds.py)
        runs = [(n, n, {}) for n in (NEW, BASE, VEC, PER, *((FAST, FAST, VEC, PER) if device != "cpu" else ()))]
        runs += [("low_fp32", LOW, {"INTER": "fp32", "STATES": "fp32"}), ("low_bf16", LOW, {"STATES": "fp32"}),
                 ("low_bf16_states", LOW, {})]
        for key, name, extra in runs:
            got[key] = gdn_prefill_call(_entry(name, {**params, **extra}), dev_inputs, lens, device)
        out, state = got[NEW]
        checks = {
            # the chunked seeds' tensor-core dots round fp32 operands to tf32 on a GPU (~1e-3 relative)
            "out_vs_reference": fib_close(out, ref_out, 1e-2, 1e-2),
            "state_vs_reference": fib_close(state, ref_state, 2e-3, 1e-2),
            # same algebra as the WY seed: at most a bf16 rounding flip apart, states equal to fp32 rounding
            "out_vs_wy": fib_close(out, got[BASE][0], 1e-2, 1e-2),
            "state_vs_wy": fib_close(state, got[BASE][1], 1e-4, 1e-4),
        }
        if FAST in got:
            same = torch.equal(got[FAST][0], out) and torch.equal(got[FAST][1], state)
            checks["fast_equals_wy3"] = {"ok": bool(same)}
        # (on a GPU the second wy3v call, through the compiled launchers, is the one kept)
        checks["vec_equals_wy3"] = {"ok": bool(torch.equal(got[VEC][0], out) and torch.equal(got[VEC][1], state))}
        for key, name in ((PER, "per_kernel"), ("low_fp32", "low_fp32")):
            if device == "cpu":  # warp counts do not exist in the interpreter: wy3's arithmetic, to fp32 rounding
                # (its dots are numpy matmuls, whose summation order may change with the tile width on some CPU BLAS
                # builds: a bf16 output may flip by one rounding step)
                checks[f"{name}_out"] = fib_close(got[key][0], out, 1e-2, 1e-2)
                checks[f"{name}_state"] = fib_close(got[key][1], state, 1e-6, 1e-5)
            else:  # other warp counts may sum the dots in another order: tf32 rounding apart
                checks[f"{name}_out"] = fib_close(got[key][0], out, 1e-2, 1e-2)
                checks[f"{name}_state"] = fib_close(got[key][1], state, 1e-4, 1e-4)
        # bf16 scratch and dots (fla's precision) against the fp32 reference: the output within the contest's
        # tolerances (0.01), the final state within 0.005 (measured here: 0.0039 and 0.0035 at most)
        for key in ("low_bf16", "low_bf16_states"):
            checks[f"{key}_out_vs_reference"] = fib_close(got[key][0], ref_out, 1e-2, 1e-2)
            checks[f"{key}_state_vs_reference"] = fib_close(got[key][1], ref_state, 5e-3, 5e-3)
        if sum(lens):  # the bf16 path is really taken: its final states are not the fp32 path's
            checks["low_bf16_rounds"] = {"ok": not torch.equal(got["low_bf16"][1], got["low_fp32"][1])}
        results.append({"label": label, "ok": all(c["ok"] for c in checks.values()), **checks})
    return results


if __name__ == "__main__":
    _device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    assert (_device == "cpu") == (os.environ.get("TRITON_INTERPRET") == "1"), "cpu runs need TRITON_INTERPRET=1"
    print(json.dumps(_check(_device)))
