"""benchmarks/gdn_prefill_kernel_sweep.py on the CPU (Triton interpreter, few tokens): each of wy3v's three kernels
runs per configuration on inputs from the kernels before it, every row is reported with its difference from the
first configuration of the same kernel and chunk (at most fp32 rounding here: the interpreter computes the same
sums for any warp count or register cap, and its dots are numpy matmuls, whose summation order may change with the
V tile's width on some CPU BLAS builds: 1e-7 relative seen), and malformed configurations, bad lengths and a CPU
run without the interpreter are refused."""


from __future__ import annotations

import json
from pathlib import Path

import pytest
from operator_helpers import load_script, run_benchmark

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "gdn_prefill_kernel_sweep.py"
#: the largest relative difference between configurations that fp32 rounding in the interpreter's matmuls explains
FP32_ROUNDING = 1e-6


def test_sweep_in_the_interpreter(tmp_path: Path) -> None:
    configs = ["prep,16,-,4,1,-", "prep,16,-,8,1,128", "prep,32,-,4,1,-", "h,16,32,4,1,-", "h,16,64,8,1,-",
               "o,16,64,8,1,-", "o,16,32,4,1,-"]
    proc = run_benchmark(SCRIPT, ["--lengths", "40:3", "--warmup", "0", "--iters", "1", "--out", str(tmp_path),
                                  "--name", "t", "--configs", *configs], interpret=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "gdn_prefill_kernel_sweep_cpu_t.json").read_text())
    assert data["lengths"] == [14, 13, 13] and data["tokens"] == 40 and data["sequences"] == 3
    rows = data["configs"]
    assert [(r["kernel"], r["C"], r["BV"], r["maxnreg"]) for r in rows] == [
        ("prep", 16, None, None), ("prep", 16, None, 128), ("prep", 32, None, None), ("h", 16, 32, None),
        ("h", 16, 64, None), ("o", 16, 64, None), ("o", 16, 32, None)]
    assert all("error" not in r and r["ms"] > 0 for r in rows), rows
    assert all(r["max_rel_diff"] <= FP32_ROUNDING for r in rows), rows  # against the first of its kernel and C
    md = (tmp_path / "gdn_prefill_kernel_sweep_cpu_t.md").read_text()
    assert md.startswith("# GDN prefill kernels alone (gdn_prefill_chunked_wy3v, cpu, 40 tokens / 3 sequences, "
                         "longest 14)")
    assert "| prep | 16 | - | 8 | 1 | 128 |" in md


def test_bf16_scratch_sweeps_the_wy3b_kernels(tmp_path: Path) -> None:
    configs = ["prep,16,-,4,1,-", "h,16,32,4,1,-", "h,16,64,8,1,-", "o,16,64,8,1,-", "o,16,32,4,1,-"]
    proc = run_benchmark(SCRIPT, ["--lengths", "40:3", "--warmup", "0", "--iters", "1", "--out", str(tmp_path),
                                  "--name", "b", "--scratch", "bf16", "--configs", *configs], interpret=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "gdn_prefill_kernel_sweep_cpu_b.json").read_text())
    assert data["seed"] == "gdn_prefill_chunked_wy3b" and data["scratch"] == "bf16"
    rows = data["configs"]
    assert all("error" not in r and r["ms"] > 0 and r["max_rel_diff"] <= FP32_ROUNDING for r in rows), rows


def test_the_prep_by_halves_matches_the_full_chunk_prep(tmp_path: Path) -> None:
    """``prep2`` (gdn_prefill_chunked_wy3h's chunk inverse in two halves) writes W, U and gamma equal to the full
    chunk prep's to fp32 rounding (the interpreter's tf32 dots are fp32; the halves sum in another order), with
    chunks spanning both halves, ragged tails and a sequence shorter than one half."""
    configs = ["prep,32,-,4,1,-", "prep2,32,-,4,1,-", "prep,64,-,8,1,-", "prep2,64,-,4,1,-", "prep2,64,-,8,1,-"]
    proc = run_benchmark(SCRIPT, ["--lengths", "141:3", "--warmup", "0", "--iters", "1", "--out", str(tmp_path),
                                  "--name", "h", "--scratch", "bf16", "--configs", *configs], interpret=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "gdn_prefill_kernel_sweep_cpu_h.json").read_text())
    assert data["seed"] == "gdn_prefill_chunked_wy3h"
    rows = data["configs"]
    assert [(r["kernel"], r["C"]) for r in rows] == [("prep", 32), ("prep2", 32), ("prep", 64), ("prep2", 64),
                                                     ("prep2", 64)]
    assert all("error" not in r for r in rows), rows
    assert all(r["max_rel_diff"] <= 1e-5 for r in rows), rows
    proc = run_benchmark(SCRIPT, ["--lengths", "40:3", "--out", str(tmp_path), "--configs", "prep2,32,-,4,1,-"],
                         interpret=True)
    assert proc.returncode != 0 and "need --scratch bf16" in proc.stderr


def test_bad_configurations_lengths_and_no_interpreter_are_refused(tmp_path: Path) -> None:
    mod = load_script("kopt_gdn_prefill_kernel_sweep", SCRIPT)
    for bad, why in (("prep,64,-,8,1", "expected KERNEL"), ("walk,64,32,8,1,-", "expected KERNEL"),
                     ("prep,48,-,8,1,-", "power of two"), ("prep,64,32,8,1,-", "BV is '-' for prep"),
                     ("h,64,-,8,1,-", "BV is '-' for prep"), ("o,64,48,8,1,-", "divisor of 128"),
                     ("h,64,x,8,1,-", "integers expected"), ("prep2,16,-,4,1,-", "needs C >= 32"),
                     ("prep2,64,64,4,1,-", "BV is '-' for prep")):
        with pytest.raises(mod.argparse.ArgumentTypeError, match=why):
            mod.parse_config(bad)
    assert mod.parse_config("h,64,64,8,2,128") == ("h", 64, 64, 8, 2, 128)
    assert mod.parse_lengths("10:4") == [3, 3, 2, 2]
    for bad in ("10", "3:4", "x:2"):
        with pytest.raises(mod.argparse.ArgumentTypeError):
            mod.parse_lengths(bad)
    proc = run_benchmark(SCRIPT, ["--lengths", "8:2", "--out", str(tmp_path)], interpret=False)
    assert proc.returncode != 0 and "run with TRITON_INTERPRET=1" in proc.stderr


def test_a_failing_configuration_is_a_row_even_without_a_message(capsys) -> None:
    """benchmarks/_common.sweep_attempt (both kernel sweeps): the exception's type and first line become the row's
    ``error``; an exception with an empty message (it used to raise IndexError inside the handler) too."""
    from benchmarks._common import sweep_attempt

    rows: list[dict] = []
    assert sweep_attempt({"n": 1}, rows, lambda a, b: a + b, 2, 3) == 5 and rows == []

    def fail(text: str) -> None:
        raise RuntimeError(text)

    assert sweep_attempt({"n": 2}, rows, fail, "out of resource: shared memory\nmore") is None
    assert sweep_attempt({"n": 3}, rows, fail, "") is None
    assert rows == [{"n": 2, "error": "RuntimeError: out of resource: shared memory"},
                    {"n": 3, "error": "RuntimeError: "}]
    assert "out of resource" in capsys.readouterr().err


def test_call_timer_picks_the_official_device_timer_on_a_gpu() -> None:
    """benchmarks/_common.call_timer (the three kernel sweeps): on a GPU the default is the harness's CUPTI timing
    (device time, L2 flushed, as the official timing; call BP's CUDA-event figure of a 28.7 us kernel read 74.5 us),
    ``--timer cuda_event`` the events around each call; elsewhere the host clock, whatever is asked."""
    from benchmarks._common import TIMER_WORDS, call_timer, cuda_median_ms, cupti_median_ms

    assert call_timer("cuda") is cupti_median_ms
    assert call_timer("cuda", "cuda_event") is cuda_median_ms
    host = call_timer("cpu", "cupti")
    assert host not in (cupti_median_ms, cuda_median_ms)
    calls: list[int] = []
    assert host(lambda: calls.append(1), 2, 3) >= 0.0 and len(calls) == 3
    assert set(TIMER_WORDS) == {"cupti", "cuda_event"}
    with pytest.raises(KeyError):
        call_timer("cuda", "wall")


def test_workload_lengths_are_the_contest_split(capsys: pytest.CaptureFixture[str]) -> None:
    """``--workload``: the sequence lengths of a contest workload (its seed-independent cu_seqlens), so the state
    walk's chain is the real one (the longest of 20 sequences in 8,192 tokens is 1,422, not 410)."""
    mod = load_script("kopt_gdn_prefill_kernel_sweep", SCRIPT)
    lengths = mod.workload_lengths("546aba8e")
    assert len(lengths) == 20 and sum(lengths) == 8192 and max(lengths) == 1422 and min(lengths) >= 1
    with pytest.raises(SystemExit) as stop:
        mod.workload_lengths("5")
    assert stop.value.code == 2 and "'5' matches 7 workloads" in capsys.readouterr().err
