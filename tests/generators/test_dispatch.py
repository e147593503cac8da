"""Band dispatch composition: routing through the real harness (CPU interpreter), and clear errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from harness_helpers import DEVICE, fixture_solution, rmsnorm_request  # noqa: E402

from kernelopt.data import EvaluationStatus as S  # noqa: E402
from kernelopt.generators.dispatch import DispatchError, axis_locator, compose_dispatch  # noqa: E402
from kernelopt.harness.evaluate import evaluate  # noqa: E402
from kernelopt.operators import load_operator  # noqa: E402

RMS = load_operator("rmsnorm_h4096").definition


@pytest.fixture(autouse=True)
def _builds(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path / "builds"))


def test_axis_locator_finds_the_first_input_naming_the_axis():
    assert axis_locator(RMS, "batch_size") == (0, "hidden_states", 0)
    prefill = load_operator("gdn_prefill_qk4_v8_d128_k_last").definition
    assert axis_locator(prefill, "total_seq_len") == (0, "q", 0)
    assert axis_locator(prefill, "len_cu_seqlens")[1] == "cu_seqlens"
    with pytest.raises(DispatchError, match="no input has axis 'num_tokens'"):
        axis_locator(RMS, "num_tokens")


def test_each_band_runs_its_own_specialist():
    ok, wrong = fixture_solution("rmsnorm_triton_ok"), fixture_solution("rmsnorm_triton_no_weight")
    both = compose_dispatch(RMS, [ok, wrong], [4], "batch_size")
    assert both.spec.entry_point == "dispatch.py::run" and both.name.startswith("dispatch_batch_size_")
    assert {s.path for s in both.sources} >= {"dispatch.py", "b0/kernel.py", "b1/kernel.py"}
    res = evaluate(rmsnorm_request(both, batch_sizes=(1, 7)), device=DEVICE)
    assert [r.status for r in res.results] == [S.PASSED, S.INCORRECT_NUMERICAL], [r.log for r in res.results]
    swapped = compose_dispatch(RMS, [wrong, ok], [4], "batch_size")
    assert swapped.hash() != both.hash()
    res = evaluate(rmsnorm_request(swapped, batch_sizes=(1, 7)), device=DEVICE)
    assert [r.status for r in res.results] == [S.INCORRECT_NUMERICAL, S.PASSED]


def test_combination_errors_are_explained():
    ok = fixture_solution("rmsnorm_triton_ok")
    with pytest.raises(DispatchError, match="at least 2 specialists"):
        compose_dispatch(RMS, [ok], [], "batch_size")
    with pytest.raises(DispatchError, match="mix destination-passing and value-returning"):
        compose_dispatch(RMS, [ok, fixture_solution("rmsnorm_py_value")], [4], "batch_size")
    with pytest.raises(DispatchError, match="only python/triton"):
        compose_dispatch(RMS, [ok, fixture_solution("rmsnorm_cuda_torch")], [4], "batch_size")
    with pytest.raises(DispatchError, match="strictly increasing band edges"):
        compose_dispatch(RMS, [ok, ok, ok], [8, 4], "batch_size")


def test_the_dispatch_runs_where_every_specialist_runs():
    """A band whose specialist runs on the GPU only (a CUDA seed) makes the dispatch GPU-only."""
    ok = fixture_solution("rmsnorm_triton_ok")
    assert len(ok.spec.target_hardware) == 2  # the fixture runs on the CPU and the GPU
    gpu_only = ok.spec.target_hardware[-1:]
    gpu = ok.model_copy(update={"spec": ok.spec.model_copy(update={"target_hardware": gpu_only})})
    assert compose_dispatch(RMS, [ok, ok], [4], "batch_size").spec.target_hardware == ok.spec.target_hardware
    assert compose_dispatch(RMS, [ok, gpu], [4], "batch_size").spec.target_hardware == gpu_only
    assert compose_dispatch(RMS, [gpu, ok], [4], "batch_size").spec.target_hardware == gpu_only
    # names in other words share nothing: the union (a seed's ["H200", "CPU-interpreter"] beside ["cpu", "cuda"])
    other = ok.model_copy(update={"spec": ok.spec.model_copy(update={"target_hardware": ["H200"]})})
    assert compose_dispatch(RMS, [ok, other], [4], "batch_size").spec.target_hardware == sorted(
        {*ok.spec.target_hardware, "H200"})


def test_a_nested_plan_must_use_up_its_specialists():
    from kernelopt.data.records import Decision, Evidence
    from kernelopt.generators.dispatch import compose_planned

    ok = fixture_solution("rmsnorm_triton_ok")
    plan = Evidence(kind="dispatch", subject="x", value=0.1, detail={
        "axis": "batch_size", "uppers": [4], "nested": [None, {"axis": "batch_size", "uppers": [32]}]})
    decision = Decision(action="generate", reason="r", direction="dispatch", evidence=[plan])
    with pytest.raises(DispatchError, match="need more than the 2 specialists given"):
        compose_planned(RMS, decision, [ok, ok])
    with pytest.raises(DispatchError, match="1 specialist\\(s\\) left over"):
        compose_planned(RMS, decision, [ok, ok, ok, ok])
    nested = compose_planned(RMS, decision, [ok, ok, ok])
    assert {"dispatch.py", "b0/kernel.py", "b1/dispatch.py", "b1/b0/kernel.py", "b1/b1/kernel.py"} <= {
        s.path for s in nested.sources}
    with pytest.raises(ValueError, match="without its 'dispatch' evidence row"):
        compose_planned(RMS, Decision(action="generate", reason="r", direction="dispatch"), [ok, ok])
