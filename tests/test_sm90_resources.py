"""benchmarks/sm90_resources.py: the MoE GEMMs compile for sm_90 here (no GPU), and the descriptor-loading GEMM2
(moe_grouped_fp8_q8td) needs fewer registers per thread than q8's at the large point (the reason for the seed)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import sm90_resources as res


def test_descriptor_gemm2_needs_fewer_registers_than_q8s_at_the_large_point() -> None:
    sys.path.insert(0, str(res.SEEDS))
    consts = {"H": 7168, "I": 2048, "BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 128, "SCALE_K": 128, "NUM_STAGES": 4,
              "UPCAST": False}
    q8 = importlib.import_module("moe_grouped_fp8_q8.kernel")._gemm2_q8_kernel
    td = importlib.import_module("moe_grouped_fp8_q8td.kernel")._gemm2_td_kernel
    old = res.resources(q8, res.GEMM2_TYPES, consts, 8, 4)
    new = res.resources(td, res.GEMM2_TYPES + ["i32"], {**consts, "E": 32}, 8, 4)
    assert old["wgmma"] and new["wgmma"], (old, new)  # both on Hopper tensor cores
    assert new["spill_stores"] == 0 and new["registers"] <= 128 < old["registers"], (old, new)
