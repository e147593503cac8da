"""Device ceilings for GPUs kernelopt does not ship them for: the cache (``load_ceilings``), the measuring module's
refusal without a GPU (a real child process), and the campaign step that measures an unknown GPU once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.analysis.roofline import CEILINGS_DIR, cached_ceilings_path, ceilings_cache_dir, load_ceilings
from kernelopt.operators import load_operator

GPU = "NVIDIA L40S"  # a model kernelopt ships no ceilings for
REPO = Path(__file__).resolve().parents[2]


def _ceilings(name: str, copy_tb_s: float) -> dict:
    return {"device": name, "match": [name.lower()], "copy_bandwidth_bytes_per_s": copy_tb_s * 1e12,
            "matmul_flops_per_s": {"bf16": 6.0e14, "fp8": 1.2e15, "fp32": 6.7e13}, "launch_latency_s": 5e-6,
            "sources": {}, "measured_by": "test"}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KERNELOPT_CEILINGS_DIR", str(tmp_path / "ceilings"))
    return tmp_path / "ceilings"


def _write(path: Path, data: dict | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_a_cached_measurement_applies_to_its_device_model_only(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = cached_ceilings_path(GPU)
    assert path == cache / "nvidia_l40s.json" and ceilings_cache_dir() == cache
    assert load_ceilings(GPU) is None
    _write(path, _ceilings(GPU, 3.0))
    got = load_ceilings(GPU)
    assert got is not None and got.copy_bandwidth_bytes_per_s == 3.0e12
    assert load_ceilings(GPU, cache=False) is None
    assert load_ceilings("NVIDIA L40") is None  # another model: not this file
    monkeypatch.setenv("KERNELOPT_CEILINGS_DIR", str(cache.parent))
    assert load_ceilings(GPU) is None  # another folder: not found there


def test_the_h100_sxm_ceilings_ship_and_apply_to_that_model_only() -> None:
    """Measured on an H100 SXM by the campaign path itself (call LB, 2026-12-06); the PCIe and NVL parts differ."""
    got = load_ceilings("NVIDIA H100 80GB HBM3", cache=False)
    assert got is not None and 2.5e12 < got.copy_bandwidth_bytes_per_s < 3.4e12
    assert got.rate("fp8") > got.rate("bf16") > 5e14
    assert load_ceilings("NVIDIA H100 PCIe", cache=False) is None
    assert load_ceilings("NVIDIA H100 NVL", cache=False) is None


def test_doctor_says_where_a_models_ceilings_come_from(cache: Path) -> None:
    from kernelopt.cli.doctor import ceilings_detail

    assert ceilings_detail(GPU) is None
    _write(cached_ceilings_path(GPU), _ceilings(GPU, 3.0))
    assert ceilings_detail(GPU) == (f"{GPU}: copy 3.00 TB/s, bf16 600 / fp8 1200 TFLOP/s "
                                    f"(measured into {cache / 'nvidia_l40s.json'})")
    shipped = ceilings_detail("NVIDIA H100 80GB HBM3")
    assert shipped is not None and shipped.endswith("TFLOP/s (shipped with kernelopt)")


def test_shipped_ceilings_win_over_the_cache(cache: Path) -> None:
    _write(cached_ceilings_path("NVIDIA H200"), _ceilings("NVIDIA H200", 1.0))
    got = load_ceilings("NVIDIA H200")
    shipped = json.loads((CEILINGS_DIR / "h200.json").read_text())
    assert got is not None and got.copy_bandwidth_bytes_per_s == shipped["copy_bandwidth_bytes_per_s"]


def test_an_unreadable_cache_file_is_passed_over_but_a_bad_shipped_file_is_an_error(cache: Path,
                                                                                    tmp_path: Path) -> None:
    _write(cached_ceilings_path(GPU), "{not json")
    assert load_ceilings(GPU) is None  # the next campaign measures again and replaces it
    _write(cached_ceilings_path(GPU), {"device": GPU})  # valid JSON, not the layout
    assert load_ceilings(GPU) is None
    shipped = tmp_path / "shipped"
    _write(shipped / "bad.json", "{not json")
    with pytest.raises(ValueError, match="bad ceilings file"):
        load_ceilings(GPU, directory=shipped)


def test_measuring_without_a_gpu_exits_2_with_a_clear_message(cache: Path) -> None:
    from kernelopt.harness.ceilings import measure_in_child

    env = {"CUDA_VISIBLE_DEVICES": "", "KERNELOPT_CEILINGS_DIR": str(cache)}
    proc = subprocess.run([sys.executable, "-m", "kernelopt.harness.ceilings", "--cache"], cwd=REPO,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "measuring device ceilings needs a CUDA GPU" in proc.stderr
    data, why = measure_in_child(env, 300)
    assert data is None and "exited 2" in why and "needs a CUDA GPU" in why
    assert not cache.exists()  # nothing written


def _gpu_executor(visible: str):  # type: ignore[no-untyped-def]
    """A process executor with a CPU lane and a GPU lane whose worker would see ``CUDA_VISIBLE_DEVICES=visible``
    (no worker starts before a request: only the ceilings' child process runs, for real)."""
    from kernelopt.executor.base import ProcessExecutor
    from kernelopt.executor.process import WorkerSpec

    return ProcessExecutor([WorkerSpec(device="cpu", label="cpu"),
                            WorkerSpec(device="cuda:0", label="cuda:1", env={"CUDA_VISIBLE_DEVICES": visible}),
                            WorkerSpec(device="cuda:0", label="cuda:2", env={"CUDA_VISIBLE_DEVICES": "5"})],
                           persistent=True)


def test_an_executor_measures_on_its_first_gpu_lanes_device() -> None:
    from kernelopt.executor import make_executor

    ex = _gpu_executor("")  # the first GPU lane's GPU: none on this machine, so the real child says so
    try:
        assert ex.has_gpu
        data, why = ex.measure_ceilings(300)
        assert data is None and "needs a CUDA GPU" in why
    finally:
        ex.close()
    with make_executor("cpu") as cpu:  # CPU lanes: nothing to measure
        assert not cpu.has_gpu and cpu.measure_ceilings(300) is None


def _loop(executor, events: list, **cfg):  # type: ignore[no-untyped-def]
    from kernelopt.campaign_steps import _Loop
    from kernelopt.campaign_types import CampaignConfig

    op = load_operator("rmsnorm_h4096")
    loop = _Loop(CampaignConfig(operator=op.name, **cfg), None, executor, None,
                 lambda event, **info: events.append((event, info)), op.definition, op.workloads)
    loop.device = GPU
    return loop


def test_the_campaign_measures_an_unknown_gpu_and_says_why_when_it_cannot(cache: Path) -> None:
    events: list = []
    ex = _gpu_executor("")
    try:
        _loop(ex, events).ensure_ceilings(1800.0)
    finally:
        ex.close()
    assert [e for e, _ in events] == ["measuring_ceilings", "ceilings_failed"]
    assert events[0][1] == {"device": GPU, "path": str(cache / "nvidia_l40s.json")}
    assert "needs a CUDA GPU" in events[1][1]["reason"]


class _Measured:
    """An executor whose GPU lane measured these ceilings (the measurement itself needs a GPU; it ran in call LB)."""

    has_gpu = True

    def __init__(self, data: dict) -> None:
        self.data, self.calls = data, 0

    def measure_ceilings(self, timeout_s: float) -> tuple[dict, str]:
        self.calls += 1
        return self.data, ""


def test_the_campaign_keeps_what_its_executor_measured_and_measures_a_model_once(cache: Path) -> None:
    events: list = []
    ex = _Measured(_ceilings(GPU, 0.86))
    _loop(ex, events).ensure_ceilings(1800.0)
    assert [e for e, _ in events] == ["measuring_ceilings", "ceilings_measured"]
    assert events[1][1]["path"] == str(cached_ceilings_path(GPU))
    assert load_ceilings(GPU).copy_bandwidth_bytes_per_s == 0.86e12
    _loop(ex, events).ensure_ceilings(1800.0)  # the next campaign on this model reads the cache
    assert ex.calls == 1 and len(events) == 2
    other = _Measured(_ceilings("NVIDIA L4", 0.3))  # the lane's GPU is another model than the evaluations'
    cached_ceilings_path(GPU).unlink()
    _loop(other, events).ensure_ceilings(1800.0)
    assert events[-1][0] == "ceilings_failed" and "'NVIDIA L4', not 'NVIDIA L40S'" in events[-1][1]["reason"]


def test_the_campaign_measures_nothing_it_need_not(cache: Path) -> None:
    from kernelopt.executor import make_executor

    events: list = []
    ex = _Measured(_ceilings(GPU, 0.86))
    _loop(ex, events, measure_ceilings=False).ensure_ceilings(1800.0)  # switched off
    with make_executor("cpu") as cpu:  # CPU lanes: no GPU to measure
        _loop(cpu, events).ensure_ceilings(1800.0)
    _write(cached_ceilings_path(GPU), _ceilings(GPU, 3.0))  # measured by an earlier campaign
    _loop(ex, events).ensure_ceilings(1800.0)
    assert events == [] and ex.calls == 0
    cached_ceilings_path(GPU).unlink()
    _loop(ex, events).ensure_ceilings(60.0)  # a quarter of 60 s is less than a measurement's minimum
    assert [e for e, _ in events] == ["ceilings_failed"] and ex.calls == 0
    assert "60 s of the wall clock left: not measured" in events[0][1]["reason"]


def test_a_measurement_is_written_whole_to_the_cache_and_out(cache: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``python -m kernelopt.harness.ceilings --cache --out F`` keeps (the measurement itself needs a GPU: a
    fixed one stands in for it here; the GPU path ran in call LB)."""
    from kernelopt.harness import ceilings

    monkeypatch.setattr(ceilings, "measure", lambda: _ceilings(GPU, 0.86))
    out = tmp_path / "out" / "l40s.json"
    assert ceilings.main(["--cache", "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads(cached_ceilings_path(GPU).read_text()) == _ceilings(GPU, 0.86)
    assert load_ceilings(GPU).copy_bandwidth_bytes_per_s == 0.86e12
    assert sorted(p.name for p in cache.iterdir()) == ["nvidia_l40s.json"]  # no temporary file left beside it
