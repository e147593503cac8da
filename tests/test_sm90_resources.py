"""benchmarks/sm90_resources.py: the MoE GEMMs compile for sm_90 here (no GPU), and the descriptor-loading GEMM2
(moe_grouped_fp8_q8td) needs fewer registers per thread than q8's at the large point (the reason for the seed).
Compiled in a subprocess without ``TRITON_INTERPRET`` (other tests' helpers set it in this process: ``@triton.jit``
then makes interpreter functions, which do not compile)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PROBE = """
import importlib, json, sys
sys.path.insert(0, "benchmarks")
import sm90_resources as res
sys.path.insert(0, str(res.SEEDS))
consts = {"H": 7168, "I": 2048, "BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 128, "SCALE_K": 128, "NUM_STAGES": 4,
          "UPCAST": False}
q8 = importlib.import_module("moe_grouped_fp8_q8.kernel")._gemm2_q8_kernel
td = importlib.import_module("moe_grouped_fp8_q8td.kernel")._gemm2_td_kernel
print(json.dumps([res.resources(q8, res.GEMM2_TYPES, consts, 8, 4),
                  res.resources(td, res.GEMM2_TYPES + ["i32"], {**consts, "E": 32}, 8, 4)]))
"""


def test_descriptor_gemm2_needs_fewer_registers_than_q8s_at_the_large_point() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    old, new = json.loads(proc.stdout.strip().splitlines()[-1])
    assert old["wgmma"] and new["wgmma"], (old, new)  # both on Hopper tensor cores
    assert new["spill_stores"] == 0 and new["registers"] <= 128 < old["registers"], (old, new)


def test_the_benchmark_refuses_the_interpreter() -> None:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, "benchmarks/sm90_resources.py", "--name", "never_written"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "TRITON_INTERPRET" in proc.stderr, proc.stderr[-2000:]
    assert not (REPO / "benchmarks" / "results" / "never_written.json").exists()
