"""Timing: the call sequence, CPU wall timer, CUPTI record processing (pure part) and GPU timers."""

from __future__ import annotations

import pytest
import torch

from kernelopt.harness.cupti_timer import ApiCall, GpuActivity, TimingError, iteration_spans
from kernelopt.harness.timing import l2_flush_bytes, resolve_timer, time_callable


def test_cpu_sequence_is_untimed_call_warmup_then_timed():
    calls = []
    times, timer = time_callable(lambda a, b: calls.append((a, b)), [1, 2], warmup=2, iterations=4,
                                 device="cpu")
    assert timer == "cpu_wall" and len(times) == 4 and all(t >= 0 for t in times)
    assert calls == [(1, 2)] * 7  # 1 untimed + 2 warm-up + 4 timed, same arguments every time


def test_between_runs_before_each_timed_call_and_after_the_last():
    seq = []
    times, _ = time_callable(lambda: seq.append("call"), [], warmup=1, iterations=3, device="cpu",
                             between=seq.append)
    assert len(times) == 3
    assert seq == ["call", "call", 0, "call", 1, "call", 2, "call", 3]  # untimed, warm-up, then the hooks


def test_timer_resolution_on_cpu():
    assert resolve_timer("auto", torch.device("cpu")) == "cpu_wall"
    with pytest.raises(TimingError, match="needs a CUDA device"):
        resolve_timer("cupti", torch.device("cpu"))
    with pytest.raises(TimingError):
        time_callable(lambda: None, [], warmup=0, iterations=1, device="cpu", timer="cuda_event")


def test_exceptions_from_the_callable_propagate():
    def boom():
        raise ValueError("x")

    with pytest.raises(ValueError):
        time_callable(boom, [], warmup=0, iterations=1, device="cpu")


def _k(name, start, end, corr):
    return GpuActivity(("kernel", name, 0, 0, 0), start, end, corr)


def test_iteration_spans_use_launches_inside_each_window():
    windows = [(100, 200), (1000, 1100)]
    api = [ApiCall(50, 1), ApiCall(120, 2), ApiCall(150, 3), ApiCall(990, 4), ApiCall(1010, 5)]
    acts = [
        _k("flush", 60, 400, 1),  # launched before the window: the L2 flush, excluded
        _k("a", 500, 700, 2), _k("b", 800, 2500, 3),  # gap between kernels counts
        _k("flush", 995, 1500, 4),
        _k("a", 1600, 1800, 5), GpuActivity(("memset", "MEMSET", 0, 64, 0), 1500, 1550, 5),
    ]
    with pytest.raises(TimingError, match="Inconsistent kernel names"):
        iteration_spans(windows, api, acts)
    acts[-1] = _k("b", 1900, 2100, 5)
    assert iteration_spans(windows, api, acts) == [pytest.approx(2000 / 1e6), pytest.approx(500 / 1e6)]


def test_iteration_without_activity_is_an_error():
    with pytest.raises(TimingError, match="No kernel activities recorded for iteration 1"):
        iteration_spans([(0, 10), (20, 30)], [ApiCall(5, 1), ApiCall(25, 2)], [_k("a", 6, 9, 1)])


def test_l2_flush_size_falls_back_without_a_gpu():
    assert l2_flush_bytes(torch.device("cpu")) == 2 * 60 * 1024 * 1024


gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("timer", ["cuda_event", "cupti"])
def test_gpu_timers_measure_a_kernel(timer):
    from kernelopt.harness.cupti_timer import cupti_available

    if timer == "cupti" and not cupti_available():
        pytest.skip("cupti-python >= 13 not installed")
    x = torch.randn(64 * 1024 * 1024, device="cuda")
    y = torch.empty_like(x)
    times, name = time_callable(lambda a, b: b.copy_(a), [x, y], warmup=3, iterations=20, device="cuda",
                                timer=timer)
    assert name == timer and len(times) == 20
    med = sorted(times)[10]
    # 512 MiB moved (256 read + 256 written): somewhere between 0.05 ms (10 TB/s) and 5 ms.
    assert 0.05 < med < 5.0, times


@pytest.mark.gpu
@gpu
def test_cupti_detects_skipped_launches():
    from kernelopt.harness.cupti_timer import cupti_available

    if not cupti_available():
        pytest.skip("cupti-python >= 13 not installed")
    x = torch.randn(1 << 20, device="cuda")
    state = {"n": 0}

    def cheat(a):
        state["n"] += 1
        if state["n"] < 4:  # "cache miss" for the first calls, then launch nothing
            a.mul_(1.0)

    with pytest.raises(TimingError, match="No kernel activities recorded"):
        time_callable(cheat, [x], warmup=1, iterations=5, device="cuda", timer="cupti")

    def varying(a):
        state["n"] += 1
        (a.mul_(1.0) if state["n"] % 2 else a.add_(0.0))

    with pytest.raises(TimingError, match="Inconsistent kernel names"):
        time_callable(varying, [x], warmup=1, iterations=5, device="cuda", timer="cupti")


@pytest.mark.gpu
@gpu
def test_slow_launch_heavy_call_falls_back_to_cuda_events():
    from kernelopt.harness.cupti_timer import cupti_available

    if not cupti_available():
        pytest.skip("cupti-python >= 13 not installed")
    x = torch.randn(1024, device="cuda")

    def many_launches(a):  # ~2000 tiny launches: several ms of launch-bound host time
        for _ in range(2000):
            a.mul_(1.0)

    times, name = time_callable(many_launches, [x], warmup=1, iterations=3, device="cuda", timer="cupti",
                                cupti_max_call_ms=1.0)
    assert name == "cuda_event" and len(times) == 3 and min(times) > 1.0
    _, fast = time_callable(lambda a: a.mul_(1.0), [x], warmup=1, iterations=3, device="cuda", timer="cupti",
                            cupti_max_call_ms=1.0)
    assert fast == "cupti"


@pytest.mark.gpu
@gpu
def test_cupti_kept_initialised_times_like_a_fresh_start_and_survives_a_raising_call():
    """CUPTI stays initialised between timings (``cupti_persistent``): the figures match a timing that
    finalises CUPTI, and a call that raised mid-timing leaves nothing that disturbs the next timing."""
    from kernelopt.harness.cupti_timer import cupti_available

    if not cupti_available():
        pytest.skip("cupti-python >= 13 not installed")
    x = torch.randn(32 * 1024 * 1024, device="cuda")
    y = torch.empty_like(x)

    def med(persistent):
        times, name = time_callable(lambda a, b: b.copy_(a), [x, y], warmup=3, iterations=21, device="cuda",
                                    timer="cupti", cupti_persistent=persistent)
        assert name == "cupti"
        return sorted(times)[10]

    kept = [med(True) for _ in range(3)]
    fresh = med(False)
    assert max(kept) < 1.2 * fresh and min(kept) > 0.8 * fresh, (kept, fresh)
    state = {"n": 0}

    def explodes(a):
        state["n"] += 1
        a.mul_(1.0)
        if state["n"] > 3:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        time_callable(explodes, [x], warmup=1, iterations=5, device="cuda", timer="cupti")
    times, name = time_callable(lambda a: a.add_(0.0), [x], warmup=1, iterations=5, device="cuda", timer="cupti")
    assert name == "cupti" and len(times) == 5


def test_a_slow_call_is_timed_within_the_budget_without_an_extra_call():
    import time as _time

    calls = {"n": 0}

    def slow():
        calls["n"] += 1
        _time.sleep(0.02)

    notes: list[str] = []
    times, name = time_callable(slow, [], warmup=10, iterations=50, device="cpu", budget_s=0.2, notes=notes)
    assert name == "cpu_wall" and 3 <= len(times) <= 9
    assert calls["n"] == 1 + 1 + len(times)  # the untimed first call, one warm-up, the timed calls
    assert notes and "warmup=1" in notes[0] and "0.2 s budget" in notes[0]
    quick, _ = time_callable(lambda: None, [], warmup=2, iterations=5, device="cpu", budget_s=0.2, notes=notes)
    assert len(quick) == 5 and len(notes) == 1  # within budget: official counts, no note


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("timer", ["cuda_event", "cupti", "cpu_wall"])
def test_between_is_outside_the_timed_windows_on_the_gpu(timer):
    """A 256 MB copy in the hook must not show in the timed calls (a tiny kernel each) nor change cupti's
    kernel set per call."""
    from kernelopt.harness.cupti_timer import cupti_available

    if timer == "cupti" and not cupti_available():
        pytest.skip("cupti-python >= 13 not installed")
    x = torch.ones(1024, device="cuda")
    big = torch.empty(64 * 1024 * 1024, device="cuda")
    seen = []

    def hook(i):
        seen.append(i)
        big.clone()

    plain, _ = time_callable(lambda a: a.add_(1), [x], warmup=2, iterations=10, device="cuda", timer=timer)
    hooked, _ = time_callable(lambda a: a.add_(1), [x], warmup=2, iterations=10, device="cuda", timer=timer,
                              between=hook)
    assert seen == list(range(11))
    assert sorted(hooked)[5] < 3 * sorted(plain)[5] + 0.02, (hooked, plain)
