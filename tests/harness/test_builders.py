"""Builders: cache layout, unique modules, signature rule, build failures."""

from __future__ import annotations

import sys

import pytest
import torch

from kernelopt.data import Solution
from kernelopt.harness import build_cache
from kernelopt.harness.builders import BuildError, build, check_signature
from kernelopt.operators import load_operator

RMS = load_operator("rmsnorm_h4096").definition  # 2 inputs, 1 output


def _sol(code: str, *, name="s", dps=True, lang="python", entry="main.py::run", binding=None, extra=()):
    spec = {"language": lang, "target_hardware": ["cpu"], "entry_point": entry,
            "destination_passing_style": dps}
    if binding:
        spec["binding"] = binding
    sources = [{"path": entry.split("::")[0], "content": code}, *extra]
    return Solution.model_validate({"name": name, "definition": "rmsnorm_h4096", "author": "t", "spec": spec,
                                    "sources": sources})


# -- signature rule ----------------------------------------------------------------------------------

def _f_dps(hidden_states, weight, output): ...
def _f_defaults(a, b, c, d=1, *, e=2, **kw): ...
def _f_value(a, b): ...
def _f_varargs(*args): ...
def _f_kwonly(a, b, c, *, d): ...
def _f_too_many(a, b, c, d): ...


@pytest.mark.parametrize("fn,dps,ok", [
    (_f_dps, True, True), (_f_defaults, True, True), (_f_value, False, True), (_f_value, True, False),
    (_f_dps, False, False), (_f_varargs, True, False), (_f_kwonly, True, False), (_f_too_many, True, False),
    (lambda a, b, c=None: None, False, True), (lambda a, b, c=None: None, True, True),
])
def test_signature_rule(fn, dps, ok):
    if ok:
        check_signature(fn, RMS, dps)
    else:
        with pytest.raises(BuildError, match=r"callable: expected [23] positional parameters"):
            check_signature(fn, RMS, dps)


def test_signature_messages_name_the_style_and_problem():
    with pytest.raises(BuildError, match=
                       r"^Destination-passing style callable: expected 3 positional .*variadic"):
        check_signature(_f_varargs, RMS, True)
    with pytest.raises(BuildError, match=r"^Value-returning callable: expected 2 positional .*3 parameters"):
        check_signature(_f_dps, RMS, False)


# -- python builds -------------------------------------------------------------------------------------

def test_cache_is_keyed_by_hash_and_modules_never_collide(tmp_path):
    a = _sol("def run(hidden_states, weight, output):\n    return 'a'\n", name="same")
    b = _sol("def run(hidden_states, weight, output):\n    return 'b'\n", name="same")
    fa, fb = build(a, RMS, tmp_path), build(b, RMS, tmp_path)
    assert fa(1, 2, 3) == "a" and fb(1, 2, 3) == "b"
    assert fa.__module__ != fb.__module__
    assert (tmp_path / "py" / f"ko_{a.hash()}" / "main.py").is_file()
    assert (tmp_path / "py" / f"ko_{a.hash()}" / "__init__.py").is_file()
    assert build(a, RMS, tmp_path) is fa  # in-process cache
    folder = build_cache.materialize(a, "py", tmp_path)
    (folder / "main.py").write_text("corrupted")
    assert build_cache.materialize(a, "py", tmp_path) == folder
    assert "return 'a'" in (folder / "main.py").read_text()  # a stale copy is rewritten
    # written into by another candidate: a Python file the cache did not make, bytecode Python would prefer
    (folder / "__init__.py").write_text("import sys  # patch the worker\n")
    (folder / "evil.py").write_text("x = 1\n")
    assert build_cache.materialize(a, "py", tmp_path) == folder
    assert (folder / "__init__.py").read_text() == "" and not (folder / "evil.py").exists()
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"poisoned")
    assert build_cache.materialize(a, "py", tmp_path) == folder and not (folder / "__pycache__").exists()


def test_nested_files_and_relative_imports(tmp_path):
    sol = _sol("from .lib.helpers import k\n\ndef run(hidden_states, weight, output):\n    return k()\n",
               extra=[{"path": "lib/helpers.py", "content": "def k():\n    return 42\n"}])
    assert build(sol, RMS, tmp_path)(1, 2, 3) == 42


@pytest.mark.parametrize("code,needle", [
    ("def run(hidden_states, weight, output)\n    pass\n", "SyntaxError"),
    ("raise RuntimeError('boom at import')\n", "boom at import"),
    ("import not_a_real_module_xyz\n", "ModuleNotFoundError"),
    ("def other(hidden_states, weight, output):\n    pass\n", "entry function 'run' not found"),
    ("run = 3\n", "not callable"),
])
def test_build_failures_raise_build_error_with_log(tmp_path, code, needle):
    with pytest.raises(BuildError) as info:
        build(_sol(code), RMS, tmp_path)
    assert needle in info.value.log


def test_wrong_definition_is_a_build_error(tmp_path):
    sol = _sol("def run(a, b, c):\n    pass\n").model_copy(update={"definition": "gemm_n4096_k4096"})
    with pytest.raises(BuildError, match="is for definition 'gemm_n4096_k4096'"):
        build(sol, RMS, tmp_path)


# -- cpp / cuda ----------------------------------------------------------------------------------------

def test_tvm_ffi_binding_is_refused_clearly(tmp_path):
    sol = _sol("int x;", lang="cuda", entry="k.cu::run")
    with pytest.raises(BuildError, match="binding 'tvm-ffi' is not supported"):
        build(sol, RMS, tmp_path)


@pytest.mark.skipif(torch.version.cuda is not None, reason="checks the no-CUDA guard")
def test_cuda_without_cuda_torch_is_a_compile_error(tmp_path):
    sol = _sol("__global__ void k() {}", lang="cuda", entry="k.cu::run", binding="torch")
    with pytest.raises(BuildError, match="CUDA solution cannot be compiled here"):
        build(sol, RMS, tmp_path)


CPP_RMS = r"""
#include <torch/extension.h>

void run(torch::Tensor hidden_states, torch::Tensor weight, torch::Tensor output) {
    auto x = hidden_states.to(torch::kFloat32);
    auto inv = torch::rsqrt(x.pow(2).mean({-1}, true) + 1e-5);
    output.copy_((x * inv * weight.to(torch::kFloat32)).to(output.scalar_type()));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("run", &run); }
"""


@pytest.mark.slow
def test_cpp_torch_extension_builds_and_runs(tmp_path):
    sol = _sol(CPP_RMS, lang="cpp", entry="kernel.cpp::run", binding="torch")
    fn = build(sol, RMS, tmp_path)
    x, w = torch.randn(3, 4096, dtype=torch.bfloat16), torch.randn(4096, dtype=torch.bfloat16)
    out = torch.empty_like(x)
    fn(x, w, out)
    xf = x.float()
    want = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float()).bfloat16()
    assert torch.allclose(out.float(), want.float(), rtol=1e-2, atol=1e-2)
    with pytest.raises(BuildError, match="expected 2 positional parameters, but got 3"):
        value_style = sol.spec.model_copy(update={"destination_passing_style": False})
        build(sol.model_copy(update={"spec": value_style}), RMS, tmp_path)
    # Released (its module leaves sys.modules; the shared library stays mapped) and built again: the extension is
    # imported afresh from the build cache, not recompiled, and still computes the same.
    from kernelopt.harness.builders import release_built

    assert sol.hash() in release_built()
    assert not any(m.startswith(build_cache.package_name(sol)) for m in sys.modules)
    so_files = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.so")}
    again = build(sol, RMS, tmp_path)
    out2 = torch.empty_like(x)
    again(x, w, out2)
    assert torch.equal(out2, out)
    assert so_files and {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.so")} == so_files


def test_cpp_compile_error_carries_the_compiler_output(tmp_path):
    # A missing header is a fatal error before torch/extension.h is parsed, so this test is quick.
    sol = _sol('#include "no_such_header_xyz.h"\n#include <torch/extension.h>\n', lang="cpp",
               entry="kernel.cpp::run", binding="torch", name="broken")
    with pytest.raises(BuildError) as info:
        build(sol, RMS, tmp_path)
    assert "no_such_header_xyz.h" in info.value.log and "kernel.cpp" in info.value.log


def test_a_process_keeps_the_recently_used_solutions_built(tmp_path, monkeypatch):
    import sys
    import weakref

    from kernelopt.harness.builders import KEEP_BUILT_ENV, built_solutions, release_built

    release_built()
    monkeypatch.setenv(KEEP_BUILT_ENV, "2")
    sols = [_sol(f"STATE = []\n\ndef run(hidden_states, weight, output):\n    return {i}\n", name=f"k{i}")
            for i in range(3)]
    first = build(sols[0], RMS, tmp_path)
    gone = weakref.ref(first)  # its module's globals and it form a cycle: only a collection frees them
    build(sols[1], RMS, tmp_path)
    assert build(sols[0], RMS, tmp_path) is first  # used again: now the most recent
    del first
    assert build(sols[2], RMS, tmp_path)(1, 2, 3) == 2  # releases k1, the least recently used
    assert built_solutions() == [sols[0].hash(), sols[2].hash()]
    assert not any(m.startswith(build_cache.package_name(sols[1])) for m in sys.modules)
    assert build(sols[1], RMS, tmp_path)(1, 2, 3) == 1  # imported afresh from the build cache; releases k0
    assert gone() is None  # collected by the release itself (a GPU buffer in its globals is given back then)
    assert release_built() == [sols[2].hash(), sols[1].hash()] and built_solutions() == []
    monkeypatch.setenv(KEEP_BUILT_ENV, "two")
    with pytest.raises(ValueError, match=r"KERNELOPT_WORKER_KEEP_BUILT='two': expected a whole number"):
        build(sols[0], RMS, tmp_path)


@pytest.mark.parametrize("bad", [0, -1, "8", True])
def test_executor_keep_built_must_be_a_whole_number_of_solutions(bad):
    from omegaconf import OmegaConf

    from kernelopt.cli.build import make_executor

    with pytest.raises(ValueError, match=r"executor.keep_built=.*: expected a whole number >= 1"):
        make_executor(OmegaConf.create({"kind": "cpu", "keep_built": bad}), False)
