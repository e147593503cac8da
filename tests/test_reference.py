"""Reference runner: every operator's reference runs on CPU and returns the declared outputs."""

from __future__ import annotations

import traceback

import pytest
import torch
from operator_helpers import ATTENTION, DECODE, INDEXER, PREFILL, available_gib
from operator_helpers import op as _op
from operator_helpers import smallest as _smallest

from kernelopt.data import Definition, Workload
from kernelopt.harness.dtypes import torch_dtype
from kernelopt.harness.inputs import describe_inputs, make_inputs
from kernelopt.harness.reference import ReferenceRunError, load_reference, run_reference

MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"


def _check_outputs(definition: Definition, workload: Workload, outs: dict[str, torch.Tensor]) -> None:
    assert list(outs) == list(definition.outputs)
    for name, spec in definition.outputs.items():
        assert outs[name].shape == definition.shape_of(name, workload.axes), name
        assert outs[name].dtype == torch_dtype(spec.dtype), name
        if outs[name].is_floating_point():
            assert bool(torch.isfinite(outs[name]).all()), name


@pytest.mark.parametrize("name", [INDEXER, ATTENTION, DECODE, PREFILL, "rmsnorm_h4096",
                                  "fused_add_rmsnorm_h4096", "gemm_n4096_k4096"])
def test_reference_runs_on_smallest_workload(name: str) -> None:
    op, w = _op(name), _smallest(name)
    outs = run_reference(op.definition, make_inputs(op.definition, w))
    _check_outputs(op.definition, w, outs)
    assert any(bool((t != 0).any()) for t in outs.values() if t.dtype != torch.int32) or name == INDEXER


def test_indexer_reference_returns_reachable_unique_indices() -> None:
    op = _op(INDEXER)
    w = next(w for w in op.workloads if w.axes["batch_size"] == 4 and w.axes["max_num_pages"] == 34)
    inputs = make_inputs(op.definition, w)
    out = run_reference(op.definition, inputs)["topk_indices"]
    _check_outputs(op.definition, w, {"topk_indices": out})
    for b in range(4):
        seq_len = int(inputs["seq_lens"][b])
        pages = inputs["block_table"][b].long()
        reachable = {int(pages[p // 64]) * 64 + p % 64 for p in range(seq_len)}
        row = out[b][out[b] >= 0].tolist()
        assert len(row) == min(2048, seq_len) and len(set(row)) == len(row)
        assert set(row) <= reachable
        if seq_len <= 2048:
            assert set(row) == reachable  # short rows return every token
        assert bool((out[b][len(row):] == -1).all())
    assert describe_inputs(op.definition, w, inputs)["rows_over_topk"] >= 1


def test_gdn_prefill_matches_decode_stepping() -> None:
    """Prefill over cu_seqlens equals the decode reference applied token by token per sequence."""
    pre, dec = _op(PREFILL).definition, _op(DECODE).definition
    w = next(w for w in _op(PREFILL).workloads if w.axes["num_seqs"] == 3 and w.axes["total_seq_len"] < 150)
    x = make_inputs(pre, w)
    outs = run_reference(pre, x)
    _check_outputs(pre, w, outs)
    cu = x["cu_seqlens"].tolist()
    for s in range(3):
        state = x["state"][s:s + 1]
        for t in range(cu[s], cu[s + 1]):
            step = {"q": x["q"][t].view(1, 1, 4, 128), "k": x["k"][t].view(1, 1, 4, 128),
                    "v": x["v"][t].view(1, 1, 8, 128), "state": state, "A_log": x["A_log"],
                    "a": x["a"][t].view(1, 1, 8), "dt_bias": x["dt_bias"], "b": x["b"][t].view(1, 1, 8),
                    "scale": x["scale"]}
            got = run_reference(dec, step)
            state = got["new_state"]
            assert torch.allclose(got["output"].float().view(8, 128), outs["output"][t].float(), atol=1e-2)
        assert torch.allclose(state[0], outs["new_state"][s], atol=1e-4)
    assert float(outs["new_state"].abs().max()) < 10  # the recurrence stays bounded


@pytest.mark.slow
@pytest.mark.skipif(available_gib() < 20, reason="the MoE reference needs ~18 GiB of free host memory")
def test_moe_reference_on_cpu() -> None:
    op, w = _op(MOE), _smallest(MOE)
    assert w.axes["seq_len"] == 1
    inputs = make_inputs(op.definition, w)
    assert describe_inputs(op.definition, w, inputs)["local_pairs"] >= 1
    out = run_reference(op.definition, inputs)
    _check_outputs(op.definition, w, out)
    y = out["output"].float()
    assert 1.0 < float(y.std()) < 1000.0  # well-scaled against atol 1 / rtol 0.3


# -- runner behaviour -----------------------------------------------------------------------------
TINY = {
    "name": "tiny_ref", "op_type": "test", "axes": {"n": {"type": "var"}},
    "inputs": {"x": {"shape": ["n"], "dtype": "float32"}},
    "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
    "reference": "import torch\n\ndef run(x):\n    return x * 2\n",
}


def _tiny(reference: str, outputs: dict | None = None) -> Definition:
    return Definition.model_validate({**TINY, "reference": reference, "outputs": outputs or TINY["outputs"]})


def test_single_tensor_and_tuple_results_map_to_names() -> None:
    x = torch.arange(3.0)
    assert torch.equal(run_reference(_tiny(TINY["reference"]), {"x": x})["y"], x * 2)
    two = _tiny("def run(x):\n    return x + 1, x - 1\n",
                {"y": {"shape": ["n"], "dtype": "float32"}, "z": {"shape": ["n"], "dtype": "float32"}})
    got = run_reference(two, {"x": x})
    assert torch.equal(got["y"], x + 1) and torch.equal(got["z"], x - 1)
    one_tuple = _tiny("def run(x):\n    return (x,)\n")
    assert torch.equal(run_reference(one_tuple, {"x": x})["y"], x)


@pytest.mark.parametrize("reference, needle", [
    ("def run(x):\n    return x, x\n",
     r"returned 2 value\(s\) but the definition declares 1 output\(s\) \['y'\]"),
    ("def run(x):\n    return 3.0\n", "output 'y' is a float, not a torch.Tensor"),
    ("import no_such_module_xyz\ndef run(x):\n    return x\n",
     "field 'reference' failed to load: ModuleNotFoundError"),
    ("def run(x):\n    return x\nrun = 4\n", "defines no callable 'run'"),
])
def test_bad_reference_is_a_clear_error(reference: str, needle: str) -> None:
    with pytest.raises(ReferenceRunError, match=needle):
        run_reference(_tiny(reference), {"x": torch.ones(2)})


def test_missing_input_is_named() -> None:
    with pytest.raises(ReferenceRunError, match=r"inputs \['x'\] missing"):
        run_reference(_tiny(TINY["reference"]), {})


def test_reference_is_loaded_afresh_each_time() -> None:
    """No process-wide cache of reference callables a candidate could fill first (reference_cache_poison): each
    load executes the source in a new namespace."""
    a = load_reference(_tiny(TINY["reference"]))
    b = load_reference(_tiny(TINY["reference"]))
    assert a is not b and a.__globals__ is not b.__globals__
    assert torch.equal(a(torch.ones(2)), b(torch.ones(2)))


def test_traceback_shows_reference_source() -> None:
    d = _tiny("def run(x):\n    value = x.sum()\n    raise ValueError('boom in reference')\n")
    with pytest.raises(ValueError, match="boom") as err:
        run_reference(d, {"x": torch.ones(2)})
    text = "".join(traceback.format_exception(err.value))
    assert "<reference tiny_ref" in text and "raise ValueError('boom in reference')" in text
