"""benchmarks/ncu_sections.py: ncu's details report (CSV) parsed per launch; without a GPU it says so and exits 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.ncu_sections import parse_details  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def _row(lid: int, kernel: str, section: str, metric: str, unit: str, value: str) -> str:
    return (f'"{lid}","123","python3","host","{kernel}","1","7","(256, 1, 1)","(250, 16, 1)","0","9.0",'
            f'"{section}","{metric}","{unit}","{value}"')


def test_parse_details_groups_metrics_per_launch_and_skips_program_output() -> None:
    text = "\n".join([
        "==PROF== Connected to process 123", "profile_target: ncu profile of x on y (cuda:0)", HEADER,
        _row(0, "_gemm1_swiglu_td_kernel", "GPU Speed Of Light Throughput", "Memory Throughput", "%", "61.20"),
        _row(0, "_gemm1_swiglu_td_kernel", "GPU Speed Of Light Throughput", "Duration", "us", "1,027.71"),
        _row(1, "_gemm2_td_kernel", "Occupancy", "Achieved Occupancy", "%", "23.9"),
        # a rule's row (the report's advice columns; no metric) and a metric row cut before trailing columns
        _row(1, "_gemm2_td_kernel", "Occupancy", "", "", "") + ',"AchievedOccupancy","OPT","low occupancy"',
        _row(1, "_gemm2_td_kernel", "WarpStateStats", "Warp Cycles Per Issued Instruction", "cycle", "30.1"),
        "==PROF== Disconnected from process 123"])
    launches = parse_details(text)
    assert [(r["id"], r["kernel"]) for r in launches] == [(0, "_gemm1_swiglu_td_kernel"), (1, "_gemm2_td_kernel")]
    assert launches[0]["grid"] == "(250, 16, 1)"
    assert launches[0]["metrics"] == [("GPU Speed Of Light Throughput", "Memory Throughput", "%", "61.20"),
                                      ("GPU Speed Of Light Throughput", "Duration", "us", "1,027.71")]
    assert launches[1]["metrics"] == [("Occupancy", "Achieved Occupancy", "%", "23.9"),
                                      ("WarpStateStats", "Warp Cycles Per Issued Instruction", "cycle", "30.1")]


def test_parse_details_refuses_a_report_without_its_columns() -> None:
    with pytest.raises(ValueError, match="no CSV rows"):
        parse_details("==PROF== nothing profiled\n")
    with pytest.raises(ValueError, match="Metric Value"):
        parse_details('"ID","Kernel Name","Block Size","Grid Size","Section Name","Metric Name","Metric Unit"\n'
                      '"0","k","(1, 1, 1)","(1, 1, 1)","s","m","u"\n')


def test_without_a_gpu_it_says_so_and_exits_2() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ncu_sections.py"), "--operator", "x",
                           "--solution", "y", "--workloads", "z"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert "needs a CUDA GPU and the ncu binary" in proc.stderr
