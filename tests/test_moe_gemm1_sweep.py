"""benchmarks/moe_gemm1_sweep.py on the CPU (Triton interpreter, small H / I): the sweep runs the q8 seed's GEMM1
per configuration, reports every row, drops the register cap under the interpreter (the dequantised intermediate
is then identical to the uncapped run's), compares other row tiles with the first configuration of the same
BLOCK_N, and refuses malformed configurations and a CPU run without the interpreter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from operator_helpers import load_script, run_benchmark

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "moe_gemm1_sweep.py"


def test_sweep_in_the_interpreter(tmp_path: Path) -> None:
    proc = run_benchmark(SCRIPT, ["--tokens", "24", "--hidden", "256", "--inter", "256", "--warmup", "0",
                                  "--iters", "1", "--configs", "16,64,4,2,-", "16,64,4,2,128", "32,64,4,2,-",
                                  "16,128,4,2,-", "--out", str(tmp_path), "--name", "t"], interpret=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "moe_gemm1_sweep_cpu_t.json").read_text())
    rows = data["configs"]
    assert [(r["BLOCK_M"], r["BLOCK_N"], r["maxnreg"]) for r in rows] == [(16, 64, None), (16, 64, 128),
                                                                          (32, 64, None), (16, 128, None)]
    assert all("error" not in r and r["ms"] > 0 and r["rows"] > 0 for r in rows), rows
    assert rows[1]["same_as_first"] and rows[1]["max_rel_diff"] == 0.0  # the cap is dropped: the same kernel
    assert rows[2]["max_rel_diff"] < 1e-6 and rows[3]["same_as_first"]  # first of its BLOCK_N
    assert len({r["rows"] for r in rows}) == 1  # every configuration covers the same routed rows
    md = (tmp_path / "moe_gemm1_sweep_cpu_t.md").read_text()
    assert md.startswith("# MoE GEMM1 alone (cpu, T = 24, H 256, I 256)") and "| 16 | 64 | 4 | 2 | 128 |" in md


def test_bad_configurations_and_no_interpreter_are_refused(tmp_path: Path) -> None:
    mod = load_script("kopt_moe_gemm1_sweep", SCRIPT)
    for bad, why in (("64,128,8", "expected BLOCK_M"), ("64,96,8,3,-", "BLOCK_N must divide 128"),
                     ("64,x,8,3,-", "integers expected")):
        with pytest.raises(mod.argparse.ArgumentTypeError, match=why):
            mod.parse_config(bad)
    assert mod.parse_config("64,128,8,3,-") == (64, 128, 8, 3, None)
    proc = run_benchmark(SCRIPT, ["--tokens", "4", "--hidden", "256", "--inter", "256", "--out", str(tmp_path)],
                         interpret=False)
    assert proc.returncode != 0 and "run with TRITON_INTERPRET=1" in proc.stderr
