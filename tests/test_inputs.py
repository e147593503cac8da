"""Input materialisation: dtypes, FlashInfer random draws, scalars, blobs and structured generators."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
import torch
from operator_helpers import ATTENTION, DECODE, INDEXER, PREFILL
from operator_helpers import op as _op
from operator_helpers import smallest as _smallest

from kernelopt.data import Definition, Workload
from kernelopt.harness.dtypes import UnsupportedDTypeError, bytes_per_element, dtype_name, torch_dtype
from kernelopt.harness.inputs import (
    InputError,
    allocate_outputs,
    describe_inputs,
    load_input_hook,
    make_inputs,
    random_tensor,
    structure_generator,
    summarise_inputs,
)

MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
FAST = [INDEXER, DECODE, PREFILL, "rmsnorm_h4096", "fused_add_rmsnorm_h4096", "gemm_n4096_k4096"]


@cache
def _inputs(name: str, seed: int = 3) -> dict:
    return make_inputs(_op(name).definition, _smallest(name), seed=seed)


def _structures(name: str):
    op, hook = _op(name), load_input_hook(name)
    for w in op.workloads:
        axes = op.definition.axis_values(w.axes)
        yield w, axes, hook.structure(op.definition, w, axes)


# -- dtypes -------------------------------------------------------------------------------------
def test_dtype_map() -> None:
    assert torch_dtype("float8_e4m3fn") is torch.float8_e4m3fn
    assert torch_dtype("float8_e5m2") is torch.float8_e5m2
    assert torch_dtype("bfloat16") is torch.bfloat16 and torch_dtype("bool") is torch.bool
    assert dtype_name(torch.int32) == "int32"
    assert bytes_per_element("float4_e2m1") == 0.5 and bytes_per_element("int64") == 8
    with pytest.raises(UnsupportedDTypeError, match="float4_e2m1"):
        torch_dtype("float4_e2m1")
    with pytest.raises(UnsupportedDTypeError, match="unknown dtype 'float33'"):
        torch_dtype("float33")


def test_random_draws_follow_flashinfer() -> None:
    g = torch.Generator().manual_seed(0)
    i8 = random_tensor((100_000,), "int8", g)
    assert i8.dtype == torch.int8 and i8.min() == -128 and i8.max() == 127
    i32 = random_tensor((100_000,), "int32", g)
    assert i32.min() == -1024 and i32.max() == 1023
    b = random_tensor((1000,), "bool", g)
    assert b.dtype == torch.bool and 0 < int(b.sum()) < 1000
    f = random_tensor((100_000,), "bfloat16", g).float()
    assert abs(f.mean()) < 0.02 and abs(f.std() - 1) < 0.02


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_draw_matches_clamped_randn(name: str) -> None:
    g = torch.Generator().manual_seed(1)
    ours = random_tensor((1 << 20,), name, g).view(torch.uint8).long()
    ref = torch.randn(1 << 20, generator=g).clamp(-2, 2).to(torch_dtype(name)).view(torch.uint8).long()
    p = torch.bincount(ours, minlength=256).double() / ours.numel()
    q = torch.bincount(ref, minlength=256).double() / ref.numel()
    assert 0.5 * (p - q).abs().sum() < 0.01  # total variation distance of the code distributions
    assert random_tensor((3, 5), name, g).shape == (3, 5)


# -- generic make_inputs -------------------------------------------------------------------------
@pytest.mark.parametrize("name", FAST)
def test_make_inputs_shapes_order_and_outputs(name: str) -> None:
    op, w = _op(name), _smallest(name)
    inputs = _inputs(name)
    assert list(inputs) == list(op.definition.inputs)
    for key, spec in op.definition.inputs.items():
        shape = op.definition.shape_of(key, w.axes)
        if shape is None:
            assert isinstance(inputs[key], (int, float, bool))
        else:
            assert inputs[key].shape == shape and inputs[key].dtype == torch_dtype(spec.dtype)
    outs = allocate_outputs(op.definition, w)
    assert list(outs) == list(op.definition.outputs)
    for key, t in outs.items():
        assert t.shape == op.definition.shape_of(key, w.axes)
    assert all(line.split(":")[0] in inputs for line in summarise_inputs(inputs).splitlines())


def test_scalars_come_from_the_workload() -> None:
    op, w = _op(PREFILL), _smallest(PREFILL)
    assert make_inputs(op.definition, w)["scale"] == 0.0
    moe = _op(MOE).workloads[0]
    assert moe.inputs["local_expert_offset"].value == 192  # scalar typed int32 stays a python int
    assert isinstance(moe.inputs["routed_scaling_factor"].value, float)


def test_same_seed_same_data_new_seed_new_data_same_structure() -> None:
    op = _op(PREFILL)
    w = next(w for w in op.workloads if w.axes["num_seqs"] == 3)
    a = make_inputs(op.definition, w, seed=0)
    b = make_inputs(op.definition, w, seed=0)
    c = make_inputs(op.definition, w, seed=1)
    for key, value in a.items():
        assert torch.equal(value, b[key]) if isinstance(value, torch.Tensor) else value == b[key]
    assert torch.equal(a["cu_seqlens"], c["cu_seqlens"])  # structure depends on the UUID only
    for key in ("q", "k", "v", "state", "A_log"):
        assert not torch.equal(a[key], c[key])
    def fp8() -> torch.Tensor:
        return random_tensor((64,), "float8_e4m3fn", torch.Generator().manual_seed(0)).view(torch.uint8)

    assert torch.equal(fp8(), fp8())


# -- structured inputs ---------------------------------------------------------------------------
def test_indexer_tables_and_lengths_are_valid() -> None:
    for w, axes, st in _structures(INDEXER):
        b, p, n = axes["batch_size"], axes["max_num_pages"], axes["num_pages"]
        bt, sl = st["block_table"], st["seq_lens"]
        assert bt.shape == (b, p) and bt.dtype == torch.int32 and sl.dtype == torch.int32
        assert int(bt.min()) >= 0 and int(bt.max()) < n
        assert all(len(set(row.tolist())) == p for row in bt)
        assert len(set(bt.flatten().tolist())) == b * p  # no page shared between rows
        assert int(sl.min()) >= 1 and int(sl.max()) <= p * 64
        assert int(sl.max()) > (p - 1) * 64  # one row needs the full table width


def test_indexer_packed_cache_matches_reference_layout() -> None:
    op, hook = _op(INDEXER), load_input_hook(INDEXER)
    g = torch.Generator().manual_seed(0)
    keys = torch.randn(5, 64, 1, 128, dtype=torch.bfloat16, generator=g)
    keys[2, 7] = 0  # all-zero token: scale floors at 1e-4 / 448
    packed = hook.pack_k_cache(keys)
    assert packed.shape == (5, 64, 1, 132) and packed.dtype == torch.int8
    fp8, scales = hook.unpack_k_cache(packed)
    assert bool((scales > 0).all())
    expected = keys.float().abs().amax(-1).clamp(min=1e-4).squeeze(-1) / 448
    assert torch.allclose(scales, expected)
    namespace: dict = {}
    exec(op.definition.reference, namespace)  # noqa: S102
    deq = namespace["dequant_fp8_kv_cache"](packed)  # the reference's own unpacking
    assert torch.equal(deq, fp8.float() * scales[..., None])
    err = (deq - keys.float().squeeze(2)).abs()
    assert bool((err <= 0.07 * keys.float().squeeze(2).abs() + 1e-6).all())


def test_indexer_full_inputs_have_positive_scales() -> None:
    op, w = _op(INDEXER), _smallest(INDEXER)
    inputs = _inputs(INDEXER)
    _, scales = load_input_hook(INDEXER).unpack_k_cache(inputs["k_index_cache_fp8"])
    assert scales.shape == (11923, 64) and bool((scales > 0).all()) and bool(torch.isfinite(scales).all())
    assert describe_inputs(op.definition, w, inputs)["seq_lens"] == inputs["seq_lens"].tolist()


def test_prefill_cu_seqlens_are_valid() -> None:
    for w, axes, st in _structures(PREFILL):
        cu = st["cu_seqlens"]
        assert cu.dtype == torch.int64 and cu.shape == (axes["num_seqs"] + 1,)
        assert int(cu[0]) == 0 and int(cu[-1]) == axes["total_seq_len"]
        assert bool((cu[1:] > cu[:-1]).all())


def test_attention_indices_are_valid_and_mixed() -> None:
    kinds = set()
    pages_seen = []
    for w, axes, st in _structures(ATTENTION):
        idx = st["sparse_indices"]
        assert idx.shape == (axes["num_tokens"], 2048) and idx.dtype == torch.int32
        for row in idx:
            valid = row[row >= 0]
            n_valid = valid.numel()
            assert n_valid >= 1 and bool((row[n_valid:] == -1).all())  # -1 only as a tail
            assert int(valid.max()) < axes["num_pages"] * 64
            assert valid.unique().numel() == n_valid
            pages = valid // 64
            pages_seen.append(pages.unique().numel())
            if n_valid < 2048:
                kinds.add("short")
            elif int(valid[0]) % 64 and bool(((valid[1:] == valid[:-1] + 1)
                                               | ((valid[:-1] % 64 == 63) & (valid[1:] % 64 == 0))).all()):
                kinds.add("window")  # ascending positions, page-crossing jumps only, unaligned start
                assert pages.unique().numel() == 33
            else:
                kinds.add("scattered")
                assert pages.unique().numel() >= 32
    assert kinds == {"short", "scattered", "window"}
    assert min(pages_seen) == 1 and max(pages_seen) >= 32
    assert any(1 < p < 5 for p in pages_seen) and any(5 <= p < 32 for p in pages_seen)


def test_gdn_keys_normalised_and_gates_moderate() -> None:
    for name in (DECODE, PREFILL):
        op = _op(name)
        w = max((w for w in op.workloads), key=lambda w: op.definition.tensor_bytes(w.axes)
                if op.definition.tensor_bytes(w.axes) < 50e6 else 0)
        x = make_inputs(op.definition, w)
        norms = x["k"].float().norm(dim=-1)
        assert torch.allclose(norms, torch.ones_like(norms), atol=0.01)
        assert float(x["A_log"].abs().max()) < 0.5 and float(x["dt_bias"].abs().max()) < 0.5
        assert 0.08 < float(x["state"].std()) < 0.12


def test_moe_routing_stand_ins_and_scales() -> None:
    op, hook = _op(MOE), load_input_hook(MOE)
    biases = []
    for w in op.workloads:
        axes = op.definition.axis_values(w.axes)
        if axes["seq_len"] > 1000:
            continue
        g1, g2 = torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)
        a = hook.generate(op.definition, w, axes, "cpu", g1)
        b = hook.generate(op.definition, w, axes, "cpu", g2)
        assert torch.equal(a["routing_logits"], b["routing_logits"])  # blob stand-ins: seed-independent
        for name in ("hidden_states_scale", "gemm1_weights_scale", "gemm2_weights_scale"):
            assert a[name].shape == op.definition.shape_of(name, w.axes)
            assert bool((a[name] > 0).all()) and not torch.equal(a[name], b[name])
        biases.append(a["routing_bias"])
        offset = w.inputs["local_expert_offset"].value
        info = hook.describe(op.definition, w, {**a, "local_expert_offset": offset})
        assert info["local_pairs"] >= 1  # no all-zero reference output
        assert len(info["tokens_per_local_expert"]) == 32
    assert all(torch.equal(biases[0], b) for b in biases)  # one bias shared by all rows


# -- blobs, hooks and errors ---------------------------------------------------------------------
TINY = {
    "name": "tiny_blob_op", "op_type": "test",
    "axes": {"n": {"type": "var"}, "h": {"type": "const", "value": 4}},
    "inputs": {"x": {"shape": ["n", "h"], "dtype": "float32"}, "y": {"shape": ["h"], "dtype": "int32"},
               "s": {"shape": None, "dtype": "float32"}},
    "outputs": {"o": {"shape": ["n", "h"], "dtype": "float32"}},
    "reference": "def run(x, y, s):\n    return x * s + y\n",
}


def _tiny(inputs: dict) -> tuple[Definition, Workload]:
    return Definition.model_validate(TINY), Workload.model_validate({"uuid": "u-1", "axes": {"n": 3},
                                                                      "inputs": inputs})


def test_safetensors_blob_is_loaded_relative_to_root(tmp_path: Path) -> None:
    from safetensors.torch import save_file

    (tmp_path / "blob").mkdir()
    x = torch.arange(12, dtype=torch.float32).view(3, 4)
    save_file({"xx": x}, str(tmp_path / "blob" / "t.safetensors"))
    d, w = _tiny({"x": {"type": "safetensors", "path": "./blob/t.safetensors", "tensor_key": "xx"},
                  "s": {"type": "scalar", "value": 2}})
    got = make_inputs(d, w, root=tmp_path)
    assert torch.equal(got["x"], x) and got["s"] == 2.0 and isinstance(got["s"], float)
    assert got["y"].dtype == torch.int32 and got["y"].shape == (4,)
    d2, w2 = _tiny({"x": {"type": "safetensors", "path": "./blob/t.safetensors", "tensor_key": "nope"}})
    with pytest.raises(InputError, match="tensor_key 'nope'"):
        make_inputs(d2, w2, root=tmp_path)
    save_file({"xx": x.double()}, str(tmp_path / "blob" / "t.safetensors"))
    with pytest.raises(InputError, match="float64.*declares"):
        make_inputs(d, w, root=tmp_path)


def test_missing_blob_without_generator_is_a_clear_error(tmp_path: Path) -> None:
    d, w = _tiny({"x": {"type": "safetensors", "path": "./blob/absent.safetensors", "tensor_key": "x"}})
    needle = r"input 'x' is a safetensors blob and .*absent\.safetensors does not exist"
    with pytest.raises(InputError, match=needle):
        make_inputs(d, w, root=tmp_path)


def test_unknown_axis_or_input_is_an_error() -> None:
    d, _ = _tiny({})
    with pytest.raises(InputError, match="tiny_blob_op workload u-1"):
        make_inputs(d, Workload.model_validate({"uuid": "u-1", "axes": {}}))
    with pytest.raises(InputError, match=r"names \['zz'\]"):
        bad = {"uuid": "u-1", "axes": {"n": 1}, "inputs": {"zz": {"type": "random"}}}
        make_inputs(d, Workload.model_validate(bad))


def test_hook_output_is_checked(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "tiny_blob_op"
    folder.mkdir()
    (folder / "definition.json").write_text(json.dumps(TINY))
    (folder / "inputs.py").write_text(
        "import torch\n"
        "def generate(definition, workload, axes, device, generator):\n"
        "    return {'y': torch.zeros(axes['h'] + 1, dtype=torch.int32)}\n")
    monkeypatch.setenv("KERNELOPT_OPERATORS_DIR", str(tmp_path))
    d, w = _tiny({})
    with pytest.raises(InputError, match=r"inputs\.py: generate\(\) output 'y': got \(5,\)"):
        make_inputs(d, w)
    (folder / "inputs.py").write_text("def generat(*a):\n    return {}\n")
    with pytest.raises(InputError, match="defines no callable 'generate"):
        make_inputs(d, w)


def test_structure_generator_is_keyed() -> None:
    a = torch.rand(4, generator=structure_generator("k1"))
    assert torch.equal(a, torch.rand(4, generator=structure_generator("k1")))
    assert not torch.equal(a, torch.rand(4, generator=structure_generator("k2")))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_device_inputs_equal_cpu_inputs() -> None:
    op, w = _op(PREFILL), _smallest(PREFILL)
    cpu = make_inputs(op.definition, w, seed=5)
    gpu = make_inputs(op.definition, w, seed=5, device="cuda")
    for key, value in cpu.items():
        if isinstance(value, torch.Tensor):
            assert gpu[key].is_cuda and torch.equal(gpu[key].cpu(), value)
