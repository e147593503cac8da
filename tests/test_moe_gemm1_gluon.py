"""benchmarks/moe_gemm1_gluon.py: the Gluon GEMM1 / GEMM2 of the MoE's long calls compile for sm_90 here (no GPU;
ptxas), without spills, and their K loops keep one wgmma in flight while the other's block-scale FMAs run (the
reason for the kernels: ``wgmma.wait_group 1`` in the loop, ``0`` only after it). Run in a subprocess without
``TRITON_INTERPRET`` (other tests set it in this process)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from operator_helpers import run_benchmark


def _run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return run_benchmark("benchmarks/moe_gemm1_gluon.py", list(args), timeout=timeout)


def test_both_kernels_compile_for_sm90_with_one_wgmma_in_flight_in_the_loop() -> None:
    proc = _run("--compile-only", "--stages", "3", "--stages2", "3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if "registers" in line]
    assert [line.split(",")[0] for line in lines] == ["GEMM1", "GEMM2"], proc.stdout
    for line in lines:
        assert " 0 spill stores" in line, line
        regs = int(re.search(r"(\d+) registers", line).group(1))
        assert regs <= 200, line  # GEMM1 at 8 warps: one program per SM needs <= 255; these leave room
        assert "m64n64k32" in line, line  # FP8 wgmma, two column halves
        waits = re.search(r"wait_group \[(.*)\]", line).group(1).replace("'", "").split(", ")
        assert waits[-1] == "0" and set(waits[:-1]) == {"1"}, line


def _q8gl():
    """The seed's entry module."""
    from benchmarks.moe_gemm1_gluon import _seed_module

    return _seed_module("kernel")


def test_the_seed_builds_q8s2s_plan_and_keeps_its_triton_gemms_where_gluon_cannot_run() -> None:
    import torch

    k = _q8gl()
    assert k._hp.LongPlan is k._plan and k._s2.PARAMS is k.PARAMS and k._hp._q8.PARAMS is k.PARAMS
    assert not k._gl.usable(torch.device("cpu"))
    plan = k._plan(100, torch.device("cpu"), k._hp._config(7168, 2048), k._hp._KERNELS)
    # no Gluon on a CPU: q8s2's bound Triton launches, GEMM2 at STAGES2
    assert type(plan.gemm1).__name__ == type(plan.gemm2).__name__ == "BoundLaunch"
    assert plan.gemm2.kw["NUM_STAGES"] == k.PARAMS["STAGES2"] == 3


def test_the_seed_refuses_an_unknown_gluon_setting() -> None:
    import pytest

    k = _q8gl()
    saved = dict(k.PARAMS)
    try:
        k.PARAMS["GLUON_STAGES"] = 7
        with pytest.raises(ValueError, match="GLUON_STAGES"):
            k.run(*([None] * 11))
    finally:
        k.PARAMS.clear()
        k.PARAMS.update(saved)


def test_the_seed_refuses_what_the_gluon_gemms_cannot_run_on_every_device() -> None:
    """On an H100 (calls OA2 / OA4) GLUON=1 failed to compile at BLOCK_M 32 ("WGMMA result M dimension must be
    divisible by 64") and gave wrong outputs at BLOCK_N 64 with fewer K blocks than ring buffers (GEMM2 reads the
    intermediate's scales per 128 columns, so BLOCK_N 64 alone is wrong): each condition is refused before any launch,
    in the interpreter too, and the seed's constraints leave the parameter points out."""
    import pytest
    import torch

    from kernelopt.generators.seeds import load_seed

    k = _q8gl()
    saved = dict(k.PARAMS)
    small = [None, None, torch.empty(4, 384), None, None, None, torch.empty(32, 384, 128), None, 0, 2.5, None]
    try:
        k.PARAMS.update(BLOCK_M=32, GLUON=1)
        with pytest.raises(ValueError, match="BLOCK_M a multiple of 64"):
            k.run(*small)
        k.PARAMS.update(BLOCK_M=64, BLOCK_N=64)
        with pytest.raises(ValueError, match="BLOCK_N 128"):
            k.run(*small)
        k.PARAMS.update(BLOCK_N=128, GLUON_STAGES=4, GLUON_STAGES2=2)
        with pytest.raises(ValueError, match="GLUON_STAGES=4 buffers at most 384 / 128 K blocks"):
            k.run(*small)
        k.PARAMS.update(GLUON_STAGES=3)  # H: 3 K blocks, enough; I: 1, fewer than GEMM2's 2 buffers
        with pytest.raises(ValueError, match="GLUON_STAGES2=2 buffers at most 128 / 128"):
            k.run(*small)
        k.PARAMS.update(BLOCK_M=32, BLOCK_N=64, GLUON=0)  # q8s2's GEMMs take them: no Gluon refusal (fails on None)
        with pytest.raises(Exception) as err:
            k.run(*small)
        assert "GLUON=1 needs" not in str(err.value)
    finally:
        k.PARAMS.clear()
        k.PARAMS.update(saved)
    seed = load_seed(Path(k.__file__).parent)
    for bad in ({"BLOCK_M": 32}, {"BLOCK_N": 64}):
        assert not seed.satisfies({**seed.spec.defaults, **bad})
        assert seed.satisfies({**seed.spec.defaults, **bad, "GLUON": 0})
    assert seed.satisfies(seed.spec.defaults)
