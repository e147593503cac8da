"""The GPU-only kernel benchmarks (Gluon and warp-specialised kernels: no interpreter) refuse a CPU run with a clear
message and write nothing, and refuse ``TRITON_INTERPRET=1`` with exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from operator_helpers import run_benchmark

SCRIPTS = ["benchmarks/moe_gemm1_gluon.py", "benchmarks/moe_gemm_ws.py"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_cpu_run_says_it_needs_a_gpu_and_writes_nothing(script: str, tmp_path: Path) -> None:
    proc = run_benchmark(script, ["--tokens", "64", "--out", str(tmp_path)], timeout=300)
    assert proc.returncode != 0 and "needs a Hopper GPU" in proc.stderr, proc.stderr[-2000:]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_interpreter_is_refused(script: str) -> None:
    proc = run_benchmark(script, ["--compile-only"], interpret=True, timeout=120)
    assert proc.returncode == 2 and "TRITON_INTERPRET" in proc.stderr, proc.stderr[-2000:]
