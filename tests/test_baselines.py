"""Baseline solutions (operators/<def>/solutions/baselines/*.json): up to date with the definitions,
valid FlashInfer Solutions with the definition's signature, and runnable (reference and torch_compile
on CPU; the fla GDN wrappers on a GPU, against the definition's reference)."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest
import torch

from kernelopt.data import Solution, load_definition, load_solution
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
OPERATORS = REPO / "operators"
DEF_DIRS = sorted(p.parent for p in OPERATORS.glob("*/definition.json"))
BASELINE_FILES = sorted(OPERATORS.glob("*/solutions/baselines/*.json"))
CONTEST_AND_SMALL = {
    "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048",
    "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64", "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64",
    "gdn_decode_qk4_v8_d128_k_last", "gdn_prefill_qk4_v8_d128_k_last",
    "rmsnorm_h4096", "fused_add_rmsnorm_h4096", "gemm_n4096_k4096",
}
GDN = {"gdn_decode_qk4_v8_d128_k_last", "gdn_prefill_qk4_v8_d128_k_last"}
_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _make_baselines() -> types.ModuleType:
    return load_script("kopt_make_baselines", OPERATORS / "make_baselines.py")


def _import_solution(sol: Solution, register: bool = True) -> Any:
    """Write the sources to a temp folder and import the entry module (as a harness would)."""
    tmp = Path(tempfile.mkdtemp(prefix="baseline_"))
    for s in sol.sources:
        (tmp / s.path).write_text(s.content)
    name = f"baseline_{sol.hash()[:12]}"
    spec = importlib.util.spec_from_file_location(name, tmp / sol.spec.entry_file)
    mod = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _baseline(def_name: str, name: str) -> Solution:
    return load_solution(OPERATORS / def_name / "solutions" / "baselines" / f"{name}.json")


def _run_args(source: str) -> list[str]:
    tree = ast.parse(source)
    runs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run"]
    assert runs, "no top-level run()"
    return [a.arg for a in runs[-1].args.args]


# --------------------------------------------------------------------------- static checks
def test_baselines_are_up_to_date() -> None:
    files = _make_baselines().build_all(OPERATORS)
    stale = [str(p) for p, text in files.items() if not p.exists() or p.read_text() != text]
    assert not stale, f"rerun operators/make_baselines.py: {stale}"
    assert set(files) == set(BASELINE_FILES), "baseline files not produced by make_baselines.py"


def test_every_definition_has_its_baselines() -> None:
    names = {d.name for d in DEF_DIRS}
    assert CONTEST_AND_SMALL <= names
    for d in DEF_DIRS:
        have = {p.stem for p in (d / "solutions" / "baselines").glob("*.json")}
        want = {"reference", "torch_compile"} | ({"fla"} if d.name in GDN else set())
        assert have == want, d.name


@pytest.mark.parametrize("path", BASELINE_FILES, ids=lambda p: f"{p.parents[2].name}/{p.stem}")
def test_baseline_is_a_valid_solution(path: Path) -> None:
    sol = load_solution(path)
    definition = load_definition(path.parents[2] / "definition.json")
    assert sol.name == path.stem and sol.definition == definition.name
    assert sol.spec.language.value == "python" and sol.spec.destination_passing_style is False
    assert sol.spec.entry_point == "main.py::run"
    assert _run_args(sol.source("main.py")) == definition.signature(dps=False)


@pytest.mark.parametrize("def_dir", DEF_DIRS, ids=lambda d: d.name)
def test_reference_baseline_is_the_definition_reference(def_dir: Path) -> None:
    definition = load_definition(def_dir / "definition.json")
    assert _baseline(def_dir.name, "reference").source("main.py") == definition.reference
    assert definition.reference.rstrip("\n") in _baseline(def_dir.name, "torch_compile").source("main.py")


def test_make_baselines_check_mode(tmp_path: Path) -> None:
    mb = _make_baselines()
    src = OPERATORS / "rmsnorm_h4096" / "definition.json"
    (tmp_path / "rmsnorm_h4096").mkdir()
    (tmp_path / "rmsnorm_h4096" / "definition.json").write_text(src.read_text())
    assert mb.main(["--check", "--operators-dir", str(tmp_path)]) == 1
    assert mb.main(["--operators-dir", str(tmp_path)]) == 0
    assert mb.main(["--check", "--operators-dir", str(tmp_path)]) == 0
    bad = json.loads(src.read_text())
    bad["reference"] = bad["reference"].replace("def run(hidden_states, weight)", "def run(x, weight)")
    (tmp_path / "rmsnorm_h4096" / "definition.json").write_text(json.dumps(bad))
    with pytest.raises(SystemExit, match="does not match inputs"):
        mb.main(["--operators-dir", str(tmp_path)])


# --------------------------------------------------------------------------- CPU runs
def _rmsnorm_inputs(n: int = 5) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 4096, generator=g).to(torch.bfloat16)
    w = torch.randn(4096, generator=g).to(torch.bfloat16)
    xf = x.float()
    ref = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float()
    return x, w, ref


def test_reference_baseline_runs_on_cpu() -> None:
    x, w, ref = _rmsnorm_inputs()
    out = _import_solution(_baseline("rmsnorm_h4096", "reference")).run(x, w)
    assert out.dtype == torch.bfloat16 and torch.allclose(out.float(), ref, atol=1e-2, rtol=1e-2)


@pytest.mark.slow
def test_torch_compile_baseline_runs_on_cpu() -> None:
    x, w, ref = _rmsnorm_inputs()
    mod = _import_solution(_baseline("rmsnorm_h4096", "torch_compile"))
    out = mod.run(x, w)
    assert out.dtype == torch.bfloat16 and torch.allclose(out.float(), ref, atol=1e-2, rtol=1e-2)
    assert "rmsnorm_h4096" in mod._KOPT_COMPILED  # compiled once, cached for the process
    again = mod.run(x, w)
    assert torch.equal(again, out)


def test_torch_compile_failure_is_a_clear_error() -> None:
    # a function dynamo cannot trace (shape error under fake tensors) -> labelled error, no eager fallback
    mod = _import_solution(_baseline("rmsnorm_h4096", "torch_compile"))

    def untraceable(x: torch.Tensor) -> torch.Tensor:
        return x @ x

    with pytest.raises(mod.TorchCompileBaselineError, match="torch.compile of the bad_def reference failed"):
        mod._kopt_call_compiled(untraceable, "bad_def", torch.ones(2, 3))


# --------------------------------------------------------------------------- GPU: fla wrappers
def _reference_fn(def_name: str):
    return _import_solution(_baseline(def_name, "reference")).run


def _gdn_common(n_tok: int, lead: tuple[int, ...], g: torch.Generator, dev: str) -> dict[str, torch.Tensor]:
    bf = torch.bfloat16
    return {
        "q": torch.randn(*lead, 4, 128, generator=g).to(bf).to(dev),
        "k": torch.nn.functional.normalize(torch.randn(*lead, 4, 128, generator=g), dim=-1).to(bf).to(dev),
        "v": torch.randn(*lead, 8, 128, generator=g).to(bf).to(dev),
        "A_log": (torch.randn(8, generator=g) * 0.1).to(dev),
        "a": torch.randn(*lead, 8, generator=g).to(bf).to(dev),
        "dt_bias": (torch.randn(8, generator=g) * 0.1).to(dev),
        "b": torch.randn(*lead, 8, generator=g).to(bf).to(dev),
    }


def _assert_close(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    err = (got.float() - want.float()).abs()
    bad = (err > atol) & (err / (want.float().abs() + 1e-8) > rtol)
    assert not bad.any(), f"{int(bad.sum())} elements off, max abs err {float(err.max()):.3g}"


@pytest.mark.gpu
@_cuda
@pytest.mark.parametrize("with_state", [True, False])
def test_fla_decode_matches_reference(with_state: bool) -> None:
    g = torch.Generator().manual_seed(1)
    bsz = 4
    ins = _gdn_common(bsz, (bsz, 1), g, "cuda")
    state = (torch.randn(bsz, 8, 128, 128, generator=g) * 0.1).cuda() if with_state else None
    args = [ins["q"], ins["k"], ins["v"], state, ins["A_log"], ins["a"], ins["dt_bias"], ins["b"], 0.0]
    want_out, want_state = _reference_fn("gdn_decode_qk4_v8_d128_k_last")(*args)
    got_out, got_state = _import_solution(_baseline("gdn_decode_qk4_v8_d128_k_last", "fla")).run(*args)
    _assert_close(got_out, want_out, 1e-2, 1e-2)
    _assert_close(got_state, want_state, 1e-2, 1e-2)


@pytest.mark.gpu
@_cuda
def test_fla_prefill_matches_reference() -> None:
    g = torch.Generator().manual_seed(2)
    cu = torch.tensor([0, 37, 37, 130, 200], dtype=torch.int64)  # includes an empty sequence
    n_tok, n_seq = int(cu[-1]), len(cu) - 1
    ins = _gdn_common(n_tok, (n_tok,), g, "cuda")
    state = (torch.randn(n_seq, 8, 128, 128, generator=g) * 0.1).cuda()
    args = [ins["q"], ins["k"], ins["v"], state, ins["A_log"], ins["a"], ins["dt_bias"], ins["b"],
            cu.cuda(), 0.0]
    want_out, want_state = _reference_fn("gdn_prefill_qk4_v8_d128_k_last")(*args)
    got_out, got_state = _import_solution(_baseline("gdn_prefill_qk4_v8_d128_k_last", "fla")).run(*args)
    _assert_close(got_out, want_out, 1e-2, 1e-2)
    _assert_close(got_state, want_state, 1e-2, 1e-2)
    assert not got_state[1].any(), "empty sequence must leave a zero state, as the reference does"
