"""Seed kernels: every seed.json is well-formed, and each seed is numerically correct under the
Triton CPU interpreter at its defaults and at non-default points of its space (and, marked ``gpu``,
compiled on a CUDA GPU at those points plus larger workloads).

The kernels run in a subprocess with ``TRITON_INTERPRET=1`` set before triton is imported (other
tests in this pytest process may already have imported triton in compiled mode). This file is
also that subprocess's script: ``python tests/test_seeds.py <seed_dir> <points-json> [cpu|cuda]``.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest
from operator_helpers import (
    available_gib,
    fib_close,
    gdn_prefill_inputs,
    import_entry,
    reference_run,
    run_kernel_script,
)
from retained_sets import marked, superseded_seed

REPO = Path(__file__).resolve().parents[1]
OPERATORS = REPO / "operators"
SEED_DIRS = sorted(p.parent for p in OPERATORS.glob("*/solutions/seeds/*/seed.json"))
_SAFE_BUILTINS = {"min": min, "max": max, "abs": abs, "len": len}

# Points checked in the interpreter: (params overriding the defaults, workload axes, options).
# The first point of each seed is its defaults on the operator's smallest workload.
POINTS: dict[str, list[tuple[dict[str, Any], dict[str, int], dict[str, Any]]]] = {
    "rmsnorm_rowwise": [
        ({}, {"batch_size": 1}, {}),
        ({"variant": "two_pass", "BLOCK_H": 1024, "ROWS_PER_PROGRAM": 4, "num_warps": 2}, {"batch_size": 7}, {}),
        ({"ROWS_PER_PROGRAM": 2, "num_warps": 16}, {"batch_size": 7}, {}),
        ({"variant": "two_pass", "BLOCK_H": 512, "num_warps": 1}, {"batch_size": 2}, {}),
    ],
    "fused_add_rmsnorm_rowwise": [
        ({}, {"batch_size": 1}, {}),
        ({"variant": "two_pass", "BLOCK_H": 1024, "ROWS_PER_PROGRAM": 4, "num_warps": 2}, {"batch_size": 7}, {}),
        ({"ROWS_PER_PROGRAM": 2, "num_warps": 16}, {"batch_size": 7}, {}),
    ],
    "gemm_tiled": [
        ({}, {"M": 1}, {}),
        ({"BLOCK_M": 16, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 1, "SPLIT_K": 1, "num_warps": 4,
          "num_stages": 2}, {"M": 1}, {}),
        ({"BLOCK_M": 32, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 4, "SPLIT_K": 4, "num_warps": 8,
          "num_stages": 2}, {"M": 35}, {}),
    ],
    "gdn_decode_vtile": [
        ({}, {"batch_size": 1}, {}),
        ({"BV": 8, "num_warps": 1}, {"batch_size": 1}, {"scale": 0.05}),
        ({"BV": 128, "num_warps": 8}, {"batch_size": 2}, {}),
        ({"BV": 64, "num_warps": 4}, {"batch_size": 2}, {"no_state": True}),
    ],
    "gdn_decode_persistent": [  # CPU grid: 4 "SMs" x PROGRAMS_PER_SM programs, each walking several tiles
        ({}, {"batch_size": 1}, {}),
        ({"BV": 16, "num_warps": 4, "PROGRAMS_PER_SM": 4, "STAGES": 3}, {"batch_size": 2}, {"scale": 0.05}),
        ({"BV": 32, "num_warps": 4, "PROGRAMS_PER_SM": 4, "STAGES": 1}, {"batch_size": 3}, {"no_state": True}),
    ],
    # prefill options: "seq_lens" fixes the split of total_seq_len (default: a random composition,
    # as inputs.py draws), "no_state" passes state=None, "scale" a non-default scale
    "gdn_prefill_recurrent": [
        ({}, {"total_seq_len": 6, "num_seqs": 1, "len_cu_seqlens": 2}, {}),
        ({"BV": 128, "num_warps": 8}, {"total_seq_len": 40, "num_seqs": 4, "len_cu_seqlens": 5},
         {"seq_lens": [1, 0, 30, 9], "scale": 0.05}),
        ({"BV": 64, "num_warps": 4}, {"total_seq_len": 12, "num_seqs": 2, "len_cu_seqlens": 3},
         {"no_state": True}),
    ],
    "gdn_prefill_chunked": [
        ({}, {"total_seq_len": 6, "num_seqs": 1, "len_cu_seqlens": 2}, {}),
        ({"C": 16, "BV": 128, "num_warps": 8}, {"total_seq_len": 60, "num_seqs": 4, "len_cu_seqlens": 5},
         {"seq_lens": [1, 0, 50, 9], "no_state": True}),
        ({"C": 32, "BV": 64, "num_warps": 8, "num_stages": 2, "PRECISION": "tf32x3"},
         {"total_seq_len": 200, "num_seqs": 2, "len_cu_seqlens": 3}, {"seq_lens": [150, 50], "scale": 0.05}),
        ({"C": 64, "BV": 16, "num_warps": 8}, {"total_seq_len": 150, "num_seqs": 1, "len_cu_seqlens": 2}, {}),
    ],
    "gdn_prefill_chunked_wy": [  # chunk slots cover empty and one-token sequences and ragged tails
        ({}, {"total_seq_len": 6, "num_seqs": 1, "len_cu_seqlens": 2}, {}),
        ({"C": 16, "BV": 128, "num_warps": 8}, {"total_seq_len": 60, "num_seqs": 4, "len_cu_seqlens": 5},
         {"seq_lens": [1, 0, 50, 9], "no_state": True}),
        ({"C": 32, "BV": 64, "num_warps": 8, "num_stages": 2, "PRECISION": "tf32x3"},
         {"total_seq_len": 200, "num_seqs": 3, "len_cu_seqlens": 4}, {"seq_lens": [150, 18, 32], "scale": 0.05}),
    ],
}


# --------------------------------------------------------------------------- kernelopt.solutions helper
def test_solution_from_folder(tmp_path: Path) -> None:
    from kernelopt.solutions import SolutionFolderError, solution_from_folder

    seed_dir = next(d for d in SEED_DIRS if d.name == "gdn_decode_vtile")
    spec = {"language": "triton", "target_hardware": ["cuda"], "entry_point": "kernel.py::run"}
    sol = solution_from_folder(seed_dir, spec, name="x", definition="gdn_decode_qk4_v8_d128_k_last",
                               kernelopt={"seed": "gdn_decode_vtile"})
    assert [s.path for s in sol.sources] == ["kernel.py"]  # seed.json is not a source
    assert sol.source("kernel.py") == (seed_dir / "kernel.py").read_text()
    assert sol.spec.destination_passing_style and sol.kernelopt == {"seed": "gdn_decode_vtile"}
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "util.py").write_text("X = 1\n")
    (tmp_path / "notes.md").write_text("not a source\n")
    with pytest.raises(SolutionFolderError, match="entry file 'kernel.py'"):
        solution_from_folder(tmp_path, spec, name="x", definition="d")
    (tmp_path / "kernel.py").write_text("def run():\n    pass\n")
    sol = solution_from_folder(tmp_path, spec, name="x", definition="d")
    assert [s.path for s in sol.sources] == ["kernel.py", "sub/util.py"]
    with pytest.raises(SolutionFolderError, match="invalid spec"):
        solution_from_folder(tmp_path, {**spec, "entry_point": "kernel.py"}, name="x", definition="d")
    with pytest.raises(SolutionFolderError, match="not a folder"):
        solution_from_folder(tmp_path / "missing", spec, name="x", definition="d")



def test_solution_folder_refuses_links_out_of_it(tmp_path: Path) -> None:
    from kernelopt.data import DataError
    from kernelopt.solutions import read_sources

    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2\n")
    folder = tmp_path / "sol"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run():\n    pass\n")
    (folder / "same.py").symlink_to("kernel.py")  # a link inside the folder is read
    assert [(s.path, s.content) for s in read_sources(folder)][1] == ("same.py", "def run():\n    pass\n")
    (folder / "leak.py").symlink_to(secret)
    with pytest.raises(DataError, match=f"leak.py: a symbolic link to {secret}, outside the solution folder"):
        read_sources(folder)
    (folder / "leak.py").unlink()
    (folder / "lib").symlink_to(tmp_path)  # a linked folder is not walked into
    assert [s.path for s in read_sources(folder)] == ["kernel.py", "same.py"]


def test_solution_folder_names_a_binary_file(tmp_path: Path) -> None:
    from kernelopt.solutions import SolutionFolderError, read_sources

    (tmp_path / "kernel.py").write_text("def run():\n    pass\n")
    (tmp_path / "blob.cu").write_bytes(b"\x00" * 128 + b"\x80\x81")
    with pytest.raises(SolutionFolderError, match=r"blob.cu: not UTF-8 text \(a binary file\?\)"):
        read_sources(tmp_path)

# --------------------------------------------------------------------------- seed.json checks
def _spec(seed_dir: Path) -> dict[str, Any]:
    return json.loads((seed_dir / "seed.json").read_text())


def _violated(spec: dict[str, Any], point: dict[str, Any]) -> list[str]:
    return [c for c in spec.get("constraints", [])
            if not eval(c, {"__builtins__": _SAFE_BUILTINS}, dict(point))]


def test_every_seed_has_points() -> None:
    names = {_spec(d)["name"] for d in SEED_DIRS}
    assert {"rmsnorm_rowwise", "fused_add_rmsnorm_rowwise", "gemm_tiled", "gdn_decode_vtile",
            "gdn_prefill_recurrent", "gdn_prefill_chunked"} <= names
    assert names <= set(POINTS), f"seeds without interpreter points: {names - set(POINTS)}"


@pytest.mark.parametrize("seed_dir", SEED_DIRS, ids=lambda d: d.name)
def test_seed_json_validates(seed_dir: Path) -> None:
    from kernelopt.generators.seeds import load_seed, read_params_line

    seed = load_seed(seed_dir)  # the offline generator's own validation must accept it
    assert seed.definition == seed_dir.parents[2].name
    spec = _spec(seed_dir)
    assert spec["name"] == seed_dir.name
    # Triton seeds, or a Python entry that compiles its own CUDA source at run time (NVRTC): gdn_decode_cuda
    cuda_sources = sorted(p.name for p in seed_dir.glob("*.cu"))
    assert spec["language"] == ("python" if cuda_sources else "triton"), (spec["language"], cuda_sources)
    if cuda_sources:  # no interpreter path: the seed must say so, and list no CPU points
        assert "CPU-interpreter" not in seed.spec.target_hardware and not POINTS.get(spec["name"])
    assert spec["destination_passing_style"] is True
    assert spec["description"].strip()
    space, defaults = spec["space"], spec["defaults"]
    assert space and all(isinstance(v, list) and v for v in space.values())
    assert set(defaults) == set(space), "defaults must set every parameter exactly"
    for k, v in defaults.items():
        assert v in space[k], f"default {k}={v!r} not in space {space[k]}"
    assert not _violated(spec, defaults), "defaults violate constraints"
    # a short, reviewable list per seed: ten, or one direction each way per knob (gdn_decode_cuda: without the way
    # back, a search that starts at OUT_FROM_OLD=0 or PER_ROW=1 could not leave it; gdn_decode_cuda_hints: 7 knobs)
    assert 3 <= len(spec["directions"]) <= max(10, 2 * len(spec["space"]))
    for dname, d in spec["directions"].items():
        assert d["description"].strip(), dname
        assert d["moves"], dname
        for param, move in d["moves"].items():
            assert param in space, f"direction {dname} moves unknown param {param}"
            assert move in ("+1", "-1") or move in space[param], f"{dname}: {param}={move!r}"
    entry_file, fn = spec["entry_point"].split("::")
    entry = (seed_dir / entry_file).read_text()
    assert f"def {fn}(" in entry
    assert read_params_line(entry, entry_file) == defaults, "the entry file's PARAMS line must equal the defaults"


@pytest.mark.parametrize("seed_dir", SEED_DIRS, ids=lambda d: d.name)
def test_checked_points_are_valid(seed_dir: Path) -> None:
    spec = _spec(seed_dir)
    for params, _, _ in POINTS[spec["name"]] + GPU_POINTS.get(spec["name"], []):
        point = {**spec["defaults"], **params}
        assert all(point[k] in spec["space"][k] for k in point), point
        assert not _violated(spec, point), (point, _violated(spec, point))


# Extra, larger points checked only on a GPU (compiled Triton).
GPU_POINTS: dict[str, list[tuple[dict[str, Any], dict[str, int], dict[str, Any]]]] = {
    "rmsnorm_rowwise": [({}, {"batch_size": 170}, {}), ({"ROWS_PER_PROGRAM": 4}, {"batch_size": 8804}, {})],
    "fused_add_rmsnorm_rowwise": [({}, {"batch_size": 170}, {}),
                                  ({"variant": "two_pass", "BLOCK_H": 2048}, {"batch_size": 1000}, {})],
    "gemm_tiled": [({}, {"M": 972}, {}),
                   ({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8, "SPLIT_K": 1, "num_warps": 8,
                     "num_stages": 3}, {"M": 2053}, {}),
                   ({"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128, "GROUP_M": 8, "SPLIT_K": 8, "num_warps": 4,
                     "num_stages": 4}, {"M": 16}, {})],
    "gdn_decode_vtile": [({}, {"batch_size": 64}, {}), ({"BV": 32, "num_warps": 4}, {"batch_size": 48}, {})],
    "gdn_prefill_recurrent": [({}, {"total_seq_len": 294, "num_seqs": 3, "len_cu_seqlens": 4}, {}),
                              ({"BV": 16, "num_warps": 2},
                               {"total_seq_len": 983, "num_seqs": 2, "len_cu_seqlens": 3}, {})],
    "gdn_prefill_chunked": [({}, {"total_seq_len": 2107, "num_seqs": 1, "len_cu_seqlens": 2}, {}),
                            ({"C": 32, "BV": 128, "num_warps": 8, "num_stages": 2},
                             {"total_seq_len": 1800, "num_seqs": 3, "len_cu_seqlens": 4}, {}),
                            ({"C": 16, "BV": 32, "num_warps": 4, "num_stages": 3, "PRECISION": "tf32x3"},
                             {"total_seq_len": 959, "num_seqs": 4, "len_cu_seqlens": 5}, {})],
    "gdn_prefill_chunked_wy": [({}, {"total_seq_len": 8192, "num_seqs": 20, "len_cu_seqlens": 21}, {}),
                               ({"C": 32, "BV": 128, "num_warps": 8, "num_stages": 2},
                                {"total_seq_len": 1800, "num_seqs": 3, "len_cu_seqlens": 4}, {})],
}


# A seed folder may carry its own points (``points.json``: {"cpu": [[params, axes, opts], ...],
# "gpu": [...]}); seeds without a hand-written case below are then checked through the real harness
# (``evaluate`` on a workload with those axes and the operator's input generators).
# ``"cpu_requires_gib": N`` skips the interpreter check where less host memory is available (the MoE
# reference alone dequantises every expert's weights to fp32).
CPU_REQUIRES_GIB: dict[str, float] = {}
for _d in SEED_DIRS:
    _pf = _d / "points.json"
    if _pf.is_file():
        _pts = json.loads(_pf.read_text())
        POINTS.setdefault(_d.name, []).extend(tuple(p) for p in _pts.get("cpu", []))
        GPU_POINTS.setdefault(_d.name, []).extend(tuple(p) for p in _pts.get("gpu", []))
        if "cpu_requires_gib" in _pts:
            CPU_REQUIRES_GIB[_d.name] = float(_pts["cpu_requires_gib"])


def _run_points(seed_dir: Path, points: list, device: str) -> list[dict[str, Any]]:
    results = run_kernel_script(Path(__file__), [str(seed_dir), json.dumps(points), device], device, 600)
    assert len(results) == len(points)
    return results


# --------------------------------------------------------------------------- kernel runs
@pytest.mark.parametrize("seed_dir", [marked(d, superseded=superseded_seed(d), test_id=d.name) for d in SEED_DIRS])
def test_seed_correct_in_interpreter(seed_dir: Path) -> None:
    need = CPU_REQUIRES_GIB.get(seed_dir.name, 0.0)
    if need and available_gib() < need:
        pytest.skip(f"{seed_dir.name}: its CPU points need ~{need:g} GiB of free host memory "
                    f"({available_gib():.1f} GiB available); they run on a GPU with the gpu points")
    points = POINTS[_spec(seed_dir)["name"]]
    if not points:  # a CUDA seed (no interpreter path): its points.json lists GPU points only
        assert list(seed_dir.glob("*.cu")) and GPU_POINTS.get(seed_dir.name), seed_dir.name
        pytest.skip(f"{seed_dir.name}: CUDA source, checked on a GPU only ({len(GPU_POINTS[seed_dir.name])} points)")
    for (params, axes, opts), res in zip(points, _run_points(seed_dir, points, "cpu")):
        assert res["ok"], f"{seed_dir.name} {params} {axes} {opts}: {res}"


@pytest.mark.gpu
@pytest.mark.parametrize("seed_dir", SEED_DIRS, ids=lambda d: d.name)
def test_seed_correct_on_gpu(seed_dir: Path) -> None:
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    name = _spec(seed_dir)["name"]
    points = POINTS[name] + GPU_POINTS.get(name, [])
    for (params, axes, opts), res in zip(points, _run_points(seed_dir, points, "cuda")):
        assert res["ok"], f"{name} {params} {axes} {opts}: {res}"


# --------------------------------------------------------------------------- subprocess side
def _to(xs: list, device: str) -> list:
    return [x.to(device) if hasattr(x, "to") else x for x in xs]


def _case(seed: str, axes: dict[str, int], opts: dict[str, Any], gen):
    """Inputs, pre-allocated (uninitialised) outputs and fp32 references (all on CPU), tolerances."""
    import torch

    bf = torch.bfloat16
    if seed in ("rmsnorm_rowwise", "fused_add_rmsnorm_rowwise"):
        n = axes["batch_size"]
        x = torch.randn(n, 4096, generator=gen).to(bf)
        w = torch.randn(4096, generator=gen).to(bf)
        s = x.float()
        inputs = [x]
        if seed == "fused_add_rmsnorm_rowwise":
            r = torch.randn(n, 4096, generator=gen).to(bf)
            s = s + r.float()
            inputs.append(r)
        ref = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float()
        return inputs + [w], [torch.empty(n, 4096, dtype=bf)], [(ref, 1e-2, 1e-2)]
    if seed == "gemm_tiled":
        m = axes["M"]
        a = torch.randn(m, 4096, generator=gen).half()
        b = torch.randn(4096, 4096, generator=gen).half()
        ref = a.float() @ b.float().T
        return [a, b], [torch.empty(m, 4096, dtype=torch.float16)], [(ref, 1e-2, 1e-2)]
    if seed == "gdn_decode_vtile":
        bsz = axes["batch_size"]
        q = torch.randn(bsz, 1, 4, 128, generator=gen).to(bf)
        k = torch.nn.functional.normalize(torch.randn(bsz, 1, 4, 128, generator=gen), dim=-1).to(bf)
        v = torch.randn(bsz, 1, 8, 128, generator=gen).to(bf)
        state = None if opts.get("no_state") else torch.randn(bsz, 8, 128, 128, generator=gen) * 0.1
        a_log = torch.randn(8, generator=gen) * 0.1
        a = torch.randn(bsz, 1, 8, generator=gen).to(bf)
        dt_bias = torch.randn(8, generator=gen) * 0.1
        b = torch.randn(bsz, 1, 8, generator=gen).to(bf)
        scale = float(opts.get("scale", 0.0))
        inputs = [q, k, v, state, a_log, a, dt_bias, b, scale]
        ref_out, ref_state = reference_run("gdn_decode_qk4_v8_d128_k_last")(*inputs)
        outputs = [torch.empty(bsz, 1, 8, 128, dtype=bf), torch.empty(bsz, 8, 128, 128)]
        return inputs, outputs, [(ref_out, 1e-2, 1e-2), (ref_state, 1e-4, 1e-3)]
    if seed in ("gdn_prefill_recurrent", "gdn_prefill_chunked", "gdn_prefill_chunked_wy"):
        n, n_seq = axes["total_seq_len"], axes["num_seqs"]
        assert axes["len_cu_seqlens"] == n_seq + 1
        lens = opts.get("seq_lens")
        if lens is None:  # a random composition of n into n_seq positive lengths, as inputs.py draws
            cuts = torch.sort(torch.randperm(n - 1, generator=gen)[: n_seq - 1] + 1).values
            cu = torch.cat([torch.zeros(1, dtype=torch.int64), cuts.to(torch.int64), torch.tensor([n])])
        else:
            assert len(lens) == n_seq and sum(lens) == n, (lens, axes)
            cu = torch.cumsum(torch.tensor([0, *lens], dtype=torch.int64), 0)
        inputs = gdn_prefill_inputs(cu, opts, gen)
        ref_out, ref_state = reference_run("gdn_prefill_qk4_v8_d128_k_last")(*inputs)
        outputs = [torch.empty(n, 8, 128, dtype=bf), torch.empty(n_seq, 8, 128, 128)]
        # the chunked seed's tensor-core dots round fp32 operands to tf32 on a GPU (~1e-3 relative)
        state_tol = (1e-4, 1e-3) if seed == "gdn_prefill_recurrent" else (2e-3, 1e-2)
        return inputs, outputs, [(ref_out, 1e-2, 1e-2), (ref_state, *state_tol)]
    raise KeyError(seed)


#: Seeds with a hand-written case in :func:`_case` (others go through :func:`_check_with_harness`).
CASES = {"rmsnorm_rowwise", "fused_add_rmsnorm_rowwise", "gemm_tiled", "gdn_decode_vtile",
         "gdn_prefill_recurrent", "gdn_prefill_chunked", "gdn_prefill_chunked_wy"}


def _check_with_harness(seed, sol, axes: dict[str, int], opts: dict[str, Any], device: str, i: int) -> dict[str, Any]:
    """The platform's own check: ``evaluate`` (official correctness rule, the definition's evaluator
    and its ``harness.json`` tolerances) on a workload with these axes, inputs drawn by the
    operator's generators."""
    from kernelopt.data import EvalRequest, HarnessSettings, Workload
    from kernelopt.harness.evaluate import evaluate
    from kernelopt.operators import load_operator, operator_settings

    op = load_operator(seed.definition)
    template = op.workloads[0]
    wl = Workload.model_validate({**template.model_dump(mode="json"), "uuid": f"seedcheck-{i:04d}-{sol.hash()[:8]}",
                                  "axes": dict(axes)})
    settings = HarnessSettings(**{**operator_settings(seed.definition), "warmup": 0, "iterations": 1,
                                  "trials": int(opts.get("trials", 1)), "seed": 1234 + i, "reference_cache_mb": 0,
                                  "input_cache_mb": 0, "time_reference": False})
    res = evaluate(EvalRequest(definition=op.definition, solution=sol, workloads=[wl], settings=settings),
                   device=device)
    r = res.results[0]
    return {"ok": r.passed, "status": r.status.value, "max_abs": r.max_abs_error, "max_rel": r.max_rel_error,
            "log": (r.log or res.build_log)[-2000:]}


def _check_points(seed_dir: Path, points: list, device: str = "cpu") -> list[dict[str, Any]]:
    import torch

    from kernelopt.generators.seeds import load_seed

    seed = load_seed(seed_dir)
    results = []
    for i, (params, axes, opts) in enumerate(points):
        try:
            sol = seed.instantiate({**seed.spec.defaults, **params})
            fn = import_entry(sol)
            if sol.kernelopt["seed"] not in CASES:
                results.append(_check_with_harness(seed, sol, axes, opts, device, i))
                continue
            gen = torch.Generator().manual_seed(1234 + i)
            inputs, outputs, refs = _case(sol.kernelopt["seed"], axes, opts, gen)
            inputs, outputs = _to(inputs, device), _to(outputs, device)
            fn(*inputs, *outputs)
            per = [fib_close(o.cpu(), r, atol, rtol) for o, (r, atol, rtol) in zip(outputs, refs)]
            results.append({"ok": all(p["ok"] for p in per), "outputs": per})
        except Exception:  # noqa: BLE001 - reported to the parent test
            results.append({"ok": False, "error": traceback.format_exc()[-3000:]})
    return results


if __name__ == "__main__":
    _device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    assert (_device == "cpu") == (os.environ.get("TRITON_INTERPRET") == "1"), "cpu runs need TRITON_INTERPRET=1"
    print(json.dumps(_check_points(Path(sys.argv[1]), json.loads(sys.argv[2]), _device)))
