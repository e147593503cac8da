"""Operator library: files round-trip, workload tables match the contest, loader errors are clear."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kernelopt.data import DataError, load_definition, load_traces
from kernelopt.operators import (
    OPERATORS_DIR,
    UnknownOperatorError,
    list_operators,
    load_operator,
    operator_settings,
)
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/flashinfer-defs")
MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
INDEXER = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
ATTENTION = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
DECODE = "gdn_decode_qk4_v8_d128_k_last"
PREFILL = "gdn_prefill_qk4_v8_d128_k_last"
COUNTS = {MOE: 19, INDEXER: 128, ATTENTION: 23, DECODE: 54, PREFILL: 100,
          "rmsnorm_h4096": 14, "fused_add_rmsnorm_h4096": 14, "gemm_n4096_k4096": 43}
PUBLISHED = {MOE: "moe", "rmsnorm_h4096": "rmsnorm", "fused_add_rmsnorm_h4096": "rmsnorm",
             "gemm_n4096_k4096": "gemm"}
OP_TYPE = {**PUBLISHED, INDEXER: "dsa_paged", ATTENTION: "dsa_paged", DECODE: "gdn", PREFILL: "gdn"}


def _data_files() -> list[Path]:
    files = sorted(OPERATORS_DIR.glob("*/definition.json")) + sorted(OPERATORS_DIR.glob("*/workloads.jsonl"))
    if SHARED.is_dir():
        files += sorted(SHARED.rglob("*.json")) + sorted(SHARED.rglob("*.jsonl"))
    return files


@pytest.mark.parametrize("path", _data_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_data_file_round_trips(path: Path) -> None:
    if path.suffix == ".json":
        original = json.loads(path.read_text())
        parsed = load_definition(path)
        dumped = parsed.to_dict()
        assert dumped == original
        assert type(parsed).model_validate(dumped) == parsed
        return
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    traces = load_traces(path)
    assert len(traces) == len(lines) > 0
    for trace, line in zip(traces, lines):
        assert trace.to_dict() == line
        assert type(trace).model_validate(trace.to_dict()) == trace


def test_library_has_the_eight_operators_with_their_counts() -> None:
    assert set(COUNTS) <= set(list_operators())
    for name, count in COUNTS.items():
        op = load_operator(name)
        assert op.name == op.definition.name == name
        assert op.definition.op_type == OP_TYPE[name]
        assert len(op.workloads) == count
        assert len({w.uuid for w in op.workloads}) == count
        assert op.readme.startswith(f"# {name}")
        assert op.path == OPERATORS_DIR / name


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared FlashInfer definitions not present")
@pytest.mark.parametrize("name", sorted(COUNTS))
def test_files_are_verbatim_copies(name: str) -> None:
    op_dir = OPERATORS_DIR / name
    src = SHARED / "definitions" / OP_TYPE[name] / f"{name}.json"
    assert (op_dir / "definition.json").read_bytes() == src.read_bytes()
    if name in PUBLISHED:
        wl = SHARED / "workloads" / PUBLISHED[name] / f"{name}.jsonl"
        assert (op_dir / "workloads.jsonl").read_bytes() == wl.read_bytes()


def test_harness_overrides() -> None:
    assert operator_settings(MOE) == {"atol": 1, "rtol": 0.3, "required_matched_ratio": 0.9}
    assert operator_settings(PREFILL) == {"warmup": 1, "iterations": 5, "trials": 3}
    for name in (INDEXER, ATTENTION, DECODE, "rmsnorm_h4096", "fused_add_rmsnorm_h4096", "gemm_n4096_k4096"):
        assert operator_settings(name) == {}


def _axes(name: str) -> list[dict[str, int]]:
    return [w.axes for w in load_operator(name).workloads]


def test_decode_batch_distribution() -> None:
    assert Counter(a["batch_size"] for a in _axes(DECODE)) == {1: 10, 4: 8, 8: 7, 16: 7, 32: 7, 48: 7, 64: 8}


def test_attention_token_distribution() -> None:
    axes = _axes(ATTENTION)
    assert Counter(a["num_tokens"] for a in axes) == {1: 1, 2: 8, 6: 3, 7: 3, 8: 8}
    assert {a["num_pages"] for a in axes} == {8462}
    w = load_operator(ATTENTION).workloads[0]
    assert w.inputs["sm_scale"].value == pytest.approx(192 ** -0.5)


def test_indexer_page_bands() -> None:
    axes = _axes(INDEXER)
    assert {a["num_pages"] for a in axes} == {11923}
    assert {a["batch_size"] for a in axes} <= set(range(1, 32))
    bands = Counter("1-32" if a["max_num_pages"] <= 32 else "33-36" if a["max_num_pages"] <= 36
                    else "37-45" if a["max_num_pages"] <= 45 else "82-91" for a in axes)
    assert bands == {"1-32": 69, "33-36": 18, "37-45": 21, "82-91": 20}
    assert all(82 <= a["max_num_pages"] <= 91 for a in axes if a["max_num_pages"] > 45)
    per_b = Counter(a["batch_size"] for a in axes)
    assert per_b[8] == 22 and per_b[15] == 21 and per_b[30] == 18 and per_b[4] == 17


def test_prefill_length_bands() -> None:
    axes = _axes(PREFILL)
    assert all(a["len_cu_seqlens"] == a["num_seqs"] + 1 for a in axes)
    n = [a["total_seq_len"] for a in axes]
    bands = Counter("<=32" if x <= 32 else "33-128" if x <= 128 else "129-512" if x <= 512
                    else "513-2048" if x <= 2048 else ">2048" for x in n)
    assert bands == {"<=32": 16, "33-128": 30, "129-512": 14, "513-2048": 16, ">2048": 24}
    assert n.count(8192) == 16
    assert Counter(a["num_seqs"] for a in axes)[1] == 33
    assert sorted(a["num_seqs"] for a in axes if a["total_seq_len"] == 8192) == [
        20, 25, 32, 32, 34, 34, 35, 37, 38, 38, 39, 43, 43, 48, 56, 57]


def _generator_module():
    path = REPO / "scripts" / "generate_workloads.py"
    return load_script("generate_workloads", path)


def test_generated_workloads_reproduce_from_seed(tmp_path: Path) -> None:
    gen = _generator_module()
    paths = gen.generate(tmp_path)
    assert len(paths) == 4
    for path in paths:
        committed = OPERATORS_DIR / path.parent.name / "workloads.jsonl"
        assert path.read_bytes() == committed.read_bytes(), f"{committed} is stale: rerun the generator"
    other = gen.generate(tmp_path / "other", seed=gen.SEED + 1)
    assert other[0].read_bytes() != paths[0].read_bytes()  # UUIDs depend on the seed


def test_unknown_operator_lists_known_ones() -> None:
    with pytest.raises(UnknownOperatorError, match="known operators: .*gemm_n4096_k4096"):
        load_operator("no_such_op")
    with pytest.raises(UnknownOperatorError):
        operator_settings("no_such_op")


def _tmp_library(tmp_path: Path, monkeypatch) -> Path:
    src = OPERATORS_DIR / "rmsnorm_h4096"
    dst = tmp_path / "rmsnorm_h4096"
    dst.mkdir()
    for f in ("definition.json", "workloads.jsonl"):
        (dst / f).write_text((src / f).read_text())
    monkeypatch.setenv("KERNELOPT_OPERATORS_DIR", str(tmp_path))
    return dst


def test_library_dir_override(tmp_path: Path, monkeypatch) -> None:
    _tmp_library(tmp_path, monkeypatch)
    assert list_operators() == ["rmsnorm_h4096"]
    assert len(load_operator("rmsnorm_h4096").workloads) == 14
    assert operator_settings("rmsnorm_h4096") == {}


@pytest.mark.parametrize("mutate, needles", [
    (lambda d: d["inputs"]["weight"].update(shape=["hidden_sizee"]),
     ["definition.json", "inputs.weight.shape", "undeclared axis 'hidden_sizee'"]),
    (lambda d: d.update(name="other_name"), ["definition.json", "field 'name'", "other_name"]),
    (lambda d: d["inputs"]["weight"].update(dtype="float33"), ["definition.json", "inputs.weight.dtype"]),
])
def test_malformed_definition_names_file_and_field(tmp_path, monkeypatch, mutate, needles) -> None:
    dst = _tmp_library(tmp_path, monkeypatch)
    data = json.loads((dst / "definition.json").read_text())
    mutate(data)
    (dst / "definition.json").write_text(json.dumps(data))
    with pytest.raises(DataError) as err:
        load_operator("rmsnorm_h4096")
    for needle in needles:
        assert needle in str(err.value)


def test_bad_json_names_file_and_line(tmp_path, monkeypatch) -> None:
    dst = _tmp_library(tmp_path, monkeypatch)
    (dst / "definition.json").write_text('{"name": "rmsnorm_h4096",\n "axes": }')
    with pytest.raises(DataError, match=r"definition\.json:2: malformed JSON"):
        load_operator("rmsnorm_h4096")


@pytest.mark.parametrize("edit, needle", [
    (lambda w: w["workload"]["axes"].update(batch_size=None), "workload.axes.batch_size"),
    (lambda w: w["workload"]["axes"].update(bogus=3), "sets ['bogus']"),
    (lambda w: w["workload"]["axes"].pop("batch_size"), "lacks var axes ['batch_size']"),
    (lambda w: w["workload"]["inputs"].update(gamma={"type": "random"}), "names ['gamma']"),
    (lambda w: w.update(definition="gemm_n4096_k4096"), "field 'definition'"),
])
def test_bad_workload_line_names_line_and_field(tmp_path, monkeypatch, edit, needle) -> None:
    dst = _tmp_library(tmp_path, monkeypatch)
    lines = (dst / "workloads.jsonl").read_text().splitlines()
    row = json.loads(lines[2])
    edit(row)
    lines[2] = json.dumps(row)
    (dst / "workloads.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as err:
        load_operator("rmsnorm_h4096")
    assert "workloads.jsonl:3" in str(err.value) and needle in str(err.value)


def test_duplicate_uuid_is_an_error(tmp_path, monkeypatch) -> None:
    dst = _tmp_library(tmp_path, monkeypatch)
    lines = (dst / "workloads.jsonl").read_text().splitlines()
    (dst / "workloads.jsonl").write_text("\n".join(lines + [lines[0]]) + "\n")
    with pytest.raises(DataError, match="workloads.jsonl:15: .*repeats line 1"):
        load_operator("rmsnorm_h4096")


@pytest.mark.parametrize("text, needle", [
    ('{"atol": 1, "toll": 2}', "unknown harness setting(s) ['toll']"),
    ('{"trials": 0}', "field 'trials'"),
    ('[1, 2]', "expected a JSON object"),
    ('{"atol": ', "harness.json:1: malformed JSON"),
])
def test_bad_harness_json(tmp_path, monkeypatch, text, needle) -> None:
    dst = _tmp_library(tmp_path, monkeypatch)
    (dst / "harness.json").write_text(text)
    with pytest.raises(DataError) as err:
        operator_settings("rmsnorm_h4096")
    assert "harness.json" in str(err.value) and needle in str(err.value)


def test_operators_and_data_stay_torch_free() -> None:
    code = ("import sys, kernelopt.data, kernelopt.operators as o; o.load_operator('gemm_n4096_k4096'); "
            "print(sorted(m for m in ('torch', 'mlflow', 'hydra') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
