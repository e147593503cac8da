"""benchmarks/span_anatomy.py on a CPU-only machine: a clear refusal (it needs the CUDA GPU's CUPTI records),
workload picking by UUID prefix, and its table from an anatomy record."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from kernelopt.operators import load_operator

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("span_anatomy_script", REPO / "benchmarks" / "span_anatomy.py")
mod = importlib.util.module_from_spec(_spec)
sys.modules["span_anatomy_script"] = mod
_spec.loader.exec_module(mod)
MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"


def test_without_a_gpu_it_refuses_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert mod.main(["--operator", MOE, "--solution", "x.json"]) == 2
    assert "needs a CUDA GPU and cupti-python" in capsys.readouterr().err


def test_a_negative_host_profile_count_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        mod.main(["--operator", MOE, "--solution", "x.json", "--host-calls", "-1"])
    assert exc.value.code == 2 and "--host-calls must be >= 0" in capsys.readouterr().err


def test_workloads_by_prefix_or_spread(capsys: pytest.CaptureFixture[str]) -> None:
    op = load_operator(MOE)
    (w,) = mod.pick(op, ["6230e838"])
    assert w.uuid.startswith("6230e838")
    with pytest.raises(SystemExit) as stop:
        mod.pick(op, ["zzzz"])
    assert stop.value.code == 2 and "'zzzz' matches 0 workloads" in capsys.readouterr().err
    spread = mod.pick(op, None)
    assert len(spread) == 3 and len({w.uuid for w in spread}) == 3


def test_the_table_names_each_activity_and_its_gap() -> None:
    row = {"workload": "6230e838-67ca", "axes": {"seq_len": 59}, "span_us": 417.1, "busy_us": 324.5,
           "idle_pct": 22.2, "activities": [
               {"name": "_route_kernel", "start_us": 0.0, "duration_us": 5.4, "gap_before_us": 0.0},
               {"name": "_gemm1_swiglu_q8_kernel", "start_us": 60.0, "duration_us": 177.0, "gap_before_us": 41.3}]}
    text = mod.markdown({"solution": "d.json", "device": "H200", "iterations": 50, "warmup": 10, "rows": [row]},
                        "python benchmarks/span_anatomy.py")
    assert "span 417.1 us, busy 324.5 us, idle 22.2 %" in text
    assert "| 1 | _gemm1_swiglu_q8_kernel | 60.0 | 177.0 | 41.3 |" in text


def test_the_host_profile_names_the_functions_a_call_spends_its_time_in() -> None:
    import time

    def slow_part() -> None:
        time.sleep(0.002)

    def call(n: int) -> int:
        slow_part()
        return sum(range(n))

    synced: list[int] = []
    host = mod.host_profile(call, [1000], calls=3, top=5, sync=lambda: synced.append(1))
    assert host["calls"] == 3 and host["wall_us"] >= 2000 and len(synced) == 12  # around each of 3 + 3 calls
    top = host["functions"][0]
    assert "sleep" in top["function"] and top["calls"] == 1 and top["own_us"] >= 2000
    assert any("slow_part" in f["function"] and f["cum_us"] >= 2000 for f in host["functions"])
    row = {"workload": "6230e838-67ca", "axes": {"seq_len": 59}, "span_us": 1.0, "busy_us": 1.0, "idle_pct": 0.0,
           "activities": [], "host": host}
    text = mod.markdown({"solution": "d.json", "device": "H200", "iterations": 50, "warmup": 10, "rows": [row]},
                        "python benchmarks/span_anatomy.py")
    assert "Host side, 3 calls:" in text and "| function | calls | own us | cumulative us |" in text
