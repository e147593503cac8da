"""The CUDA decode seeds (``gdn_decode_cuda``, ``gdn_decode_cuda_hints``) on the CPU: their sources compile for sm_90
(nvcc, where the machine has it: registers and spills read from ptxas; ``gdn_decode_cuda`` at every point of its space,
the hints seed at every rows x lanes x cache-policy point), the hints seed's cache policies reach the PTX and without
them it compiles to gdn_decode_cuda's instructions, and the host checks refuse bad input before anything is launched.
Their numerics are checked on a GPU (``points.json``'s GPU points, ``tests/test_seeds.py``)."""

from __future__ import annotations

import collections
import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from operator_helpers import import_entry

from kernelopt.generators.seeds import load_seed, with_params_line

SEED = Path(__file__).resolve().parents[1] / "operators/gdn_decode_qk4_v8_d128_k_last/solutions/seeds/gdn_decode_cuda"
SIGNATURE = ("(const bf16_t*, const bf16_t*, const bf16_t*, const float*, const float*, const bf16_t*, "
             "const float*, const bf16_t*, bf16_t*, float*, float, int)")


HINTS = SEED.with_name("gdn_decode_cuda_hints")


def _instances() -> list[tuple[int, int, int, int, int]]:
    seed = load_seed(SEED)
    return sorted({(p["R"], p["LPR"], p["OUT_FROM_OLD"], p["PER_ROW"], has_state)
                   for p in seed.valid_points() for has_state in (0, 1)})


def _compile(tmp_path: Path, source: Path, kernel: str, instances: list[tuple[int, ...]]) -> str:
    """ptxas's log of one cubin holding ``kernel<instance>`` for every instance (asserts: all compiled, no spills)."""
    unit = tmp_path / "inst.cu"
    unit.write_text(f'#include "{source}"\n' + "".join(
        f"template __global__ void {kernel}<{','.join(map(str, inst))}>{SIGNATURE};\n" for inst in instances))
    res = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-cubin", "-Xptxas", "-v", "-o",
                          str(tmp_path / "k.cubin"), str(unit)], check=False, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-4000:]
    log = res.stderr + res.stdout
    entries = re.findall(r"Compiling entry function '(\S+)'", log)
    assert len(entries) == len(instances), log[-4000:]
    registers = [int(n) for n in re.findall(r"Used (\d+) registers", log)]
    assert len(registers) == len(instances) and max(registers) <= 255
    spills = [int(n) for n in re.findall(r"(\d+) bytes spill stores", log)]
    assert not any(spills), f"register spills: {log[-4000:]}"
    return log


NEEDS_NVCC = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (CUDA toolkit) to compile the source")


@NEEDS_NVCC
def test_source_compiles_for_sm90_at_every_point(tmp_path: Path) -> None:
    instances = _instances()
    assert len(instances) == 96  # 12 (R, LPR) pairs with R * LPR >= 32, x OUT_FROM_OLD x PER_ROW x with/without a state
    _compile(tmp_path, SEED / "kernel.cu", "gdn_decode_cuda", instances)


@NEEDS_NVCC
def test_hints_seed_compiles_at_every_rows_lanes_and_cache_policy_point(tmp_path: Path) -> None:
    """Every (R, LPR) pair x LOAD_CS x STORE_CS, with OUT_FROM_OLD / PER_ROW at (1, 0) and (0, 1) (the policies touch
    only the state's loads and stores, which those two knobs do not change; all 384 instances took 34 s here)."""
    seed = load_seed(HINTS)
    points = seed.valid_points()
    assert len(points) == 4 * 192  # gdn_decode_cuda's space times the two policies
    pairs = sorted({(p["R"], p["LPR"]) for p in points})
    instances = [(r, lpr, ofo, per_row, lcs, scs, 1) for r, lpr in pairs for ofo, per_row in ((1, 0), (0, 1))
                 for lcs in (0, 1) for scs in (0, 1)]
    _compile(tmp_path, HINTS / "kernel.cu", "gdn_decode_cuda_hints", instances)


@NEEDS_NVCC
def test_hints_seed_cache_policies_reach_the_ptx(tmp_path: Path) -> None:
    """LOAD_CS / STORE_CS = 1 turn the state's 16-byte loads and stores into ld.global.cs / st.global.cs; at 0 the
    kernel keeps gdn_decode_cuda's plain (read-only path) loads and plain stores."""
    def ptx(lcs: int, scs: int) -> str:
        return _ptx(tmp_path, HINTS / "kernel.cu", "gdn_decode_cuda_hints", (4, 8, 1, 0, lcs, scs, 1))

    plain, streaming = ptx(0, 0), ptx(1, 1)
    assert "ld.global.cs.v4.f32" not in plain and "st.global.cs.v4.f32" not in plain
    assert "ld.global.nc.v4.f32" in plain and "st.global.v4.f32" in plain
    assert streaming.count("ld.global.cs.v4.f32") == 4 and streaming.count("st.global.cs.v4.f32") == 4  # R=4, LPR=8
    loads_only = ptx(1, 0)
    assert "ld.global.cs.v4.f32" in loads_only and "st.global.cs.v4.f32" not in loads_only


def _ptx(tmp_path: Path, source: Path, kernel: str, args: tuple[int, ...]) -> str:
    """The PTX of one instance, ``kernel<args>`` of ``source``, compiled for sm_90."""
    unit = tmp_path / f"{kernel}_{'_'.join(map(str, args))}.cu"
    unit.write_text(f'#include "{source}"\ntemplate __global__ void {kernel}<{",".join(map(str, args))}>{SIGNATURE};\n')
    out = unit.with_suffix(".ptx")
    subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-ptx", "-o", str(out), str(unit)], check=True,
                   capture_output=True, timeout=300)
    return out.read_text()


def _ptx_ops(tmp_path: Path, source: Path, kernel: str, args: tuple[int, ...]) -> list[str]:
    """The PTX opcodes of one instance's entry, in order (registers and labels dropped: they are numbered apart)."""
    body = _ptx(tmp_path, source, kernel, args).split(".entry", 1)[1]
    return [w[0] for w in (line.split() for line in body.splitlines())
            if w and not w[0].startswith(("//", "{", "}", "(", ")", "$", "%", "."))][1:]  # [0]: the entry's name


@NEEDS_NVCC
@pytest.mark.parametrize("point", [(4, 8, 1, 0), (8, 16, 0, 1), (1, 32, 0, 1), (16, 16, 0, 0)], ids=str)
def test_hints_seed_without_policies_compiles_to_gdn_decode_cuda_instructions(tmp_path: Path, point) -> None:
    """At LOAD_CS = STORE_CS = 0 the hints seed compiles to gdn_decode_cuda's PTX instructions: the same instructions
    (nvcc orders some address arithmetic differently: the pointer is formed in another expression) and the same
    loads, stores and shuffles in the same order, so its plain quarter can be read against gdn_decode_cuda's measured
    tables; with a policy on, the loads and stores differ."""
    def memory(ops: list[str]) -> list[str]:
        return [o for o in ops if o.startswith(("ld.", "st.", "shfl."))]

    plain = _ptx_ops(tmp_path, SEED / "kernel.cu", "gdn_decode_cuda", (*point, 1))
    hints = _ptx_ops(tmp_path, HINTS / "kernel.cu", "gdn_decode_cuda_hints", (*point, 0, 0, 1))
    assert len(plain) > 100 and collections.Counter(hints) == collections.Counter(plain)
    assert memory(hints) == memory(plain)
    streaming = _ptx_ops(tmp_path, HINTS / "kernel.cu", "gdn_decode_cuda_hints", (*point, 1, 1, 1))
    assert memory(streaming) != memory(plain) and len(memory(streaming)) == len(memory(plain))


def _inputs(batch: int = 2) -> dict:
    bf = torch.bfloat16
    return {"q": torch.zeros(batch, 1, 4, 128, dtype=bf), "k": torch.zeros(batch, 1, 4, 128, dtype=bf),
            "v": torch.zeros(batch, 1, 8, 128, dtype=bf), "state": torch.zeros(batch, 8, 128, 128),
            "A_log": torch.zeros(8), "a": torch.zeros(batch, 1, 8, dtype=bf), "dt_bias": torch.zeros(8),
            "b": torch.zeros(batch, 1, 8, dtype=bf), "scale": 0.0,
            "output": torch.zeros(batch, 1, 8, 128, dtype=bf), "new_state": torch.zeros(batch, 8, 128, 128)}


@pytest.mark.parametrize("folder", [SEED, HINTS], ids=lambda f: f.name)
def test_host_checks_refuse_bad_input_before_a_launch(folder: Path) -> None:
    seed = load_seed(folder)
    run = import_entry(seed.instantiate(None))
    args = _inputs()
    with pytest.raises(ValueError, match="q must be on a CUDA device"):
        run(**args)  # CPU tensors: refused by the host checks, CuPy never imported
    bad = {**args, "state": torch.zeros(2, 8, 128, 128, dtype=torch.float64)}
    with pytest.raises(ValueError, match="state must be torch.float32, not torch.float64"):
        run(**bad)
    with pytest.raises(ValueError, match="v has shape"):
        run(**{**args, "v": torch.zeros(2, 1, 4, 128, dtype=torch.bfloat16)})
    with pytest.raises(ValueError, match=r"32 / LPR must divide R"):
        import_entry(_with_params(seed, R=2, LPR=8))(**args)


def _with_params(seed, **params):
    """A solution whose PARAMS line is outside the seed's constraints (the host check must refuse it): the seed's
    own PARAMS-line rewrite (``instantiate`` refuses such points, so the line is written here)."""
    sol = seed.instantiate(None)
    entry = with_params_line(sol.source("kernel.py"), {**seed.spec.defaults, **params})
    return sol.model_copy(update={"sources": [s if s.path != "kernel.py" else s.model_copy(update={"content": entry})
                                              for s in sol.sources]})


@pytest.mark.parametrize("folder", [SEED, HINTS], ids=lambda f: f.name)
def test_space_matches_the_source_constraints(folder: Path) -> None:
    seed = load_seed(folder)
    pairs = {(p["R"], p["LPR"]) for p in seed.valid_points()}
    assert pairs == {(r, lpr) for r, lpr in itertools.product((1, 2, 4, 8, 16), (8, 16, 32)) if r * lpr >= 32}
    assert seed.spec.target_hardware == ["H200"]
    assert seed.instantiate(None).spec.target_hardware == ["H200"]
