"""The one-launch DSA indexer seeds (``dsa_indexer_one``; ``dsa_indexer_bisect`` and ``dsa_indexer_hist``,
whose threshold searches differ but whose ids must not) against the base seed's two-launch ``SELECT="radix"``.

Its kernel scores with the base seed's code and runs the same exact radix select in registers in each row's last
program, so its top-2048 ids must equal the base seed's element for element: checked on inputs drawn by the
operator's generators at long-context shapes (33-45 pages, rows shorter and longer than 2048 tokens, and
``num_warps`` fixed or the select's). Its select alone is checked on adversarial rows by
``tests/test_indexer_select.py`` (``regs``). The kernels run in a subprocess (``TRITON_INTERPRET=1`` on a CPU);
this file is also that subprocess's script: ``python tests/test_indexer_one.py [cpu|cuda]``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from operator_helpers import import_entry, run_kernel_script, run_on_gpu

REPO = Path(__file__).resolve().parents[1]
IDX = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
SEEDS = REPO / "operators" / IDX / "solutions" / "seeds"
# (label, axes, the one-launch seed's params[, the seed: dsa_indexer_one unless named]): rows of 2,112-2,880
# positions (NPAD 4096)
CASES = [
    ("b3_p33", {"batch_size": 3, "max_num_pages": 33, "num_pages": 120}, {}),
    ("b2_p45_w4_fp8", {"batch_size": 2, "max_num_pages": 45, "num_pages": 100}, {"num_warps": 4, "DOT": "fp8"}),
    ("b4_p36_bn128", {"batch_size": 4, "max_num_pages": 36, "num_pages": 160}, {"BN": 128, "BLOCKS": 1}),
    ("bisect_b3_p33", {"batch_size": 3, "max_num_pages": 33, "num_pages": 120}, {}, "dsa_indexer_bisect"),
    ("bisect2_b2_p45_w4", {"batch_size": 2, "max_num_pages": 45, "num_pages": 100},
     {"BITS": 2, "num_warps": 4, "BN": 128}, "dsa_indexer_bisect"),
    ("hist_b3_p33", {"batch_size": 3, "max_num_pages": 33, "num_pages": 120}, {}, "dsa_indexer_hist"),
    ("hist0_b2_p45_w4", {"batch_size": 2, "max_num_pages": 45, "num_pages": 100},
     {"HIST_BITS": 0, "num_warps": 4, "BN": 128}, "dsa_indexer_hist"),
]


def test_one_launch_equals_the_two_launch_radix_path_in_interpreter() -> None:
    res = run_kernel_script(Path(__file__), ["cpu"], "cpu", 900)
    bad = [r for r in res if not r["ok"]]
    assert len(res) == len(CASES) and not bad, json.dumps(bad)[:4000]


@pytest.mark.gpu
def test_one_launch_equals_the_two_launch_radix_path_on_gpu() -> None:
    res = run_on_gpu(Path(__file__), timeout=600)
    bad = [r for r in res if not r["ok"]]
    assert not bad, json.dumps(bad)[:4000]


# --------------------------------------------------------------------------- subprocess side
def _entry(seed_name: str, params: dict[str, Any]):
    from kernelopt.generators.seeds import load_seed

    seed = load_seed(SEEDS / seed_name)
    return import_entry(seed.instantiate({**seed.spec.defaults, **params}))


def _check(device: str) -> list[dict[str, Any]]:
    import torch

    from kernelopt.data import Workload
    from kernelopt.harness.inputs import make_inputs
    from kernelopt.operators import load_operator

    op = load_operator(IDX)
    template = op.workloads[0].model_dump(mode="json")
    two = _entry("dsa_indexer_scores", {"SELECT": "radix"})
    results = []
    for i, (label, axes, params, *seed) in enumerate(CASES):
        wl = Workload.model_validate({**template, "uuid": f"indexer-one-{label}", "axes": axes})
        inputs = make_inputs(op.definition, wl, device=device, seed=7 + i)
        args = list(inputs.values())
        lens = inputs["seq_lens"].cpu().tolist()
        out = {}
        for key, fn in (("two", two), ("one", _entry(seed[0] if seed else "dsa_indexer_one", params))):
            dst = torch.full((axes["batch_size"], 2048), 12345, dtype=torch.int32, device=device)
            fn(*args, dst)
            fn(*args, dst)  # twice: the row counters must be back at 0 after a call
            out[key] = dst.cpu()
        same = torch.equal(out["one"], out["two"])
        results.append({"label": label, "seq_lens": lens, "ok": bool(same and (out["one"] != 12345).all()),
                        "differing": int((out["one"] != out["two"]).sum())})
    return results


if __name__ == "__main__":
    _device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    assert (_device == "cpu") == (os.environ.get("TRITON_INTERPRET") == "1"), "cpu runs need TRITON_INTERPRET=1"
    print(json.dumps(_check(_device)))
