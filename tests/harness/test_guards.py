"""Guards: poisoning, input-mutation detection, plain-tensor and integrity checks."""

from __future__ import annotations

import math
import time

import pytest

import torch

from kernelopt.harness.guards import INT_POISON, InputGuard, IntegrityGuard, output_problems, poison_


def test_poison_values_per_dtype():
    assert torch.isnan(poison_(torch.empty(3, dtype=torch.bfloat16))).all()
    assert torch.isnan(poison_(torch.empty(3, dtype=torch.float32))).all()
    assert torch.isnan(poison_(torch.empty(3, dtype=torch.float8_e4m3fn)).float()).all()
    assert (poison_(torch.empty(3, dtype=torch.int32)) == -(2**31)).all()
    assert INT_POISON[torch.int32] == -(2**31)
    assert poison_(torch.zeros(2, dtype=torch.bool)).all()


def test_input_guard_detects_any_byte_change_and_keeps_pristine_copies():
    inputs = {"x": torch.randn(4, 4, generator=torch.Generator().manual_seed(0)),
              "k": torch.zeros(3, dtype=torch.int8), "scale": 0.5}
    g = InputGuard(inputs)
    assert g.mutated(inputs) == []
    inputs["x"].view(torch.int32)[2, 3] ^= 1  # one bit of the lowest mantissa place: the smallest possible change
    inputs["k"].view(torch.uint8)[0] = 1
    assert g.mutated(inputs) == ["x", "k"]
    fresh = g.fresh()
    assert torch.equal(fresh["k"], torch.zeros(3, dtype=torch.int8))
    assert fresh["x"] is not g.copies["x"]


def test_input_guard_treats_nan_bitwise():
    x = torch.tensor([float("nan"), 1.0])
    g = InputGuard({"x": x, "s": math.nan})
    assert g.mutated({"x": x, "s": math.nan}) == []


def test_output_problems():
    class Sub(torch.Tensor):
        pass

    dev = torch.device("cpu")
    t = torch.zeros(2)
    assert output_problems(["o"], [t], dev) == []
    assert "not a plain torch.Tensor" in output_problems(["o"], [t.as_subclass(Sub)], dev)[0]
    assert "not a plain torch.Tensor" in output_problems(["o"], [[1.0, 2.0]], dev)[0]
    assert "no dense storage" in output_problems(["o"], [torch.empty(2, device="meta")], dev)[0]


def test_integrity_guard_sees_replaced_timer_functions():
    import kernelopt.harness.correctness as corr

    g = IntegrityGuard()
    assert g.tampered() == []
    real = time.perf_counter
    try:
        time.perf_counter = lambda: 0.0
        assert "time.perf_counter" in g.tampered()
    finally:
        time.perf_counter = real
    assert g.tampered() == []
    real_fn = corr.error_stats
    try:
        corr.error_stats = lambda *a, **k: None
        assert "kernelopt.harness.correctness.error_stats" in g.tampered()
    finally:
        corr.error_stats = real_fn


@pytest.mark.parametrize("dunder", ["__gt__", "__ne__", "__bool__", "__abs__", "__float__"])
def test_integrity_guard_sees_patched_comparison_and_conversion_dunders(dunder):
    """`torch.Tensor.__gt__` / `__ne__` were not watched: a candidate could patch them at import so that a check
    like `(err > tol).any()` never fires; the guard names the patch and restores the inherited method."""
    g = IntegrityGuard()
    missing = object()
    own = torch.Tensor.__dict__.get(dunder, missing)  # set on Tensor itself, or inherited from TensorBase
    setattr(torch.Tensor, dunder, lambda self, *a: False)
    try:
        assert f"torch.Tensor.{dunder}" in g.tampered()
        g.restore()
        assert torch.Tensor.__dict__.get(dunder, missing) is own
    finally:
        if torch.Tensor.__dict__.get(dunder, missing) is not own:
            if own is missing:
                delattr(torch.Tensor, dunder)
            else:
                setattr(torch.Tensor, dunder, own)
    assert g.tampered() == []


def test_torchs_own_wrapping_at_import_is_adopted_and_any_other_wrapper_is_tampering():
    """In a fresh interpreter (this one may have imported torch._dynamo already): importing it rebinds
    torch.manual_seed to torch's wrapper of the same function - adopted into the snapshot, kept by restore();
    a wrapper of the original written outside torch (functools.wraps) is still tampering."""
    import subprocess
    import sys

    code = """
import functools, sys, torch
from kernelopt.harness.guards import IntegrityGuard
assert "torch._dynamo" not in sys.modules
g = IntegrityGuard()
original = torch.manual_seed
import torch._dynamo
wrapped = torch.manual_seed
assert wrapped is not original and wrapped.__wrapped__ is original
assert g.tampered() == [] and g.restore() == [] and torch.manual_seed is wrapped
torch.manual_seed = functools.wraps(wrapped)(lambda seed: wrapped(seed))
assert g.tampered() == ["torch.manual_seed"], g.tampered()
assert g.restore() == ["torch.manual_seed"] and torch.manual_seed is wrapped
torch.manual_seed(0)  # the wrapper's first call sets dynamo's own hook on the original: still no tampering
assert "__dynamo_disable" in vars(original) and g.tampered() == [], g.tampered()
hook = vars(original)["__dynamo_disable"]
original.__dynamo_disable = lambda seed: None  # a foreign hook: the wrapper would call it instead of the original
assert g.tampered() == ["torch.manual_seed"] and g.restore() == ["torch.manual_seed"]
assert "__dynamo_disable" not in vars(original) and g.tampered() == []
cell = wrapped.__closure__[wrapped.__code__.co_freevars.index("fn")]
cell.cell_contents = lambda seed: None  # the wrapper made to call something else, in place
assert g.tampered() == ["torch.manual_seed"] and g.restore() == ["torch.manual_seed"]
assert cell.cell_contents is original and g.tampered() == []
for other in (torch.autocast("cpu", dtype=torch.bfloat16)(original), torch.no_grad()(original),
              torch._disable_dynamo(lambda seed: None)):  # torch-made, but not torch's own rebinding of it
    torch.manual_seed = other
    assert g.tampered() == ["torch.manual_seed"], (other, g.tampered())
    assert g.restore() == ["torch.manual_seed"] and torch.manual_seed is wrapped
print("ok")
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]


def test_the_libraries_a_candidate_may_import_tamper_with_nothing():
    """A fresh interpreter imports what kernels commonly import after the harness's snapshot: none may count as
    tampering (torch._dynamo did, through torch.manual_seed, until its own wrapping was adopted). A torch.compile
    call was checked by hand on 2026-12-06 (nothing either); Inductor's CPU build is too heavy for this suite."""
    import subprocess
    import sys

    code = """
import importlib, torch
from kernelopt.harness.guards import IntegrityGuard
g = IntegrityGuard()
for m in ["torch._dynamo", "torch._inductor", "torch.fx", "torch.utils.cpp_extension", "triton", "triton.language",
          "triton.testing", "torch.profiler", "torch.export", "torch.func", "torch.library", "torch.nn.attention",
          "torch.amp", "torch._functorch", "numpy"]:
    importlib.import_module(m)
    assert g.tampered() == [], (m, g.tampered())
print("ok")
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]


def test_integrity_guard_sees_functions_changed_in_place_and_puts_them_back():
    """Code, defaults, keyword defaults and closure cells of a watched Python function: changed in place the object
    stays the same (an identity snapshot saw nothing; the corpus's code_swap_timer PASSED at 1 us a call)."""
    from kernelopt.harness import correctness, timing

    g = IntegrityGuard()
    fn = timing.time_callable
    code, kwdefaults = fn.__code__, dict(fn.__kwdefaults__)

    def fake(fn, args, *, warmup, iterations, device, timer="auto", flush_l2=True, cupti_max_call_ms=0.0,
             cupti_persistent=True, budget_s=0.0, notes=None, records=None, between=None):
        return [1e-3] * iterations, "cpu_wall"

    fn.__code__ = fake.__code__
    assert "kernelopt.harness.timing.time_callable" in g.tampered()
    assert "kernelopt.harness.timing.time_callable" in g.restore()
    assert timing.time_callable is fn and fn.__code__ is code and g.tampered() == []
    fn.__kwdefaults__["flush_l2"] = False  # the dict mutated in place
    assert "kernelopt.harness.timing.time_callable" in g.restore()
    assert fn.__kwdefaults__ == kwdefaults and g.tampered() == []
    stats = correctness.error_stats
    stats.__defaults__ = (0.0,)
    assert "kernelopt.harness.correctness.error_stats" in g.restore()
    assert stats.__defaults__ == (1.0,) and g.tampered() == []


def test_integrity_guard_sees_rebound_module_constants_but_not_what_a_module_rebinds_itself(tmp_path):
    """A harness constant rebound (the corpus's harness_constant: correctness.EPS = 1e30 and every finite error
    passed) is tampering and is put back; a global the module's own code rebinds under ``global`` is state."""
    import sys
    import types

    from kernelopt.harness import correctness, guards
    from kernelopt.harness.function_state import constant_names

    g = IntegrityGuard()
    eps, allowance = correctness.EPS, guards.THREAD_CPU_NS
    correctness.EPS, guards.THREAD_CPU_NS = 1e30, 10**15
    assert {"kernelopt.harness.correctness.EPS", "kernelopt.harness.guards.THREAD_CPU_NS"} <= set(g.tampered())
    g.restore()
    assert correctness.EPS == eps and guards.THREAD_CPU_NS == allowance and g.tampered() == []
    with pytest.raises(TypeError):
        INT_POISON[torch.int32] = 0  # read-only: a poison value equal to what a kernel leaves would pass stale data

    src = tmp_path / "mod_under_test.py"
    src.write_text("LIMIT = 3\nSEEN = False\nCACHE = {}\n\ndef mark():\n    global SEEN\n    SEEN = True\n")
    mod = types.ModuleType("mod_under_test")
    mod.__file__ = str(src)
    exec(compile(src.read_text(), str(src), "exec"), vars(mod))
    assert sorted(constant_names(mod)) == ["CACHE", "LIMIT"]
    assert "mod_under_test" not in sys.modules


def test_integrity_guard_sees_torch_modes_left_on_and_a_replaced_torch_function_hook():
    """A TorchFunctionMode or TorchDispatchMode entered and not left intercepts every later torch call, the
    reference's included (the corpus's function_mode_reference answered torch.rsqrt with zeros and PASSED); restore
    pops it. A mode entered and left within a call is nobody's business. Tensor.__torch_function__ is watched."""
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Fn(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Dispatch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    g = IntegrityGuard()
    with Fn(), Dispatch():
        torch.ones(2).sum()
    assert g.tampered() == []
    for mode in (Fn(), Dispatch()):
        mode.__enter__()
        assert g.tampered() == ["torch mode stacks (a TorchFunctionMode / TorchDispatchMode left on)"]
        assert g.restore() and g.tampered() == []
        assert torch._C._len_torch_function_stack() == 0 and torch._C._len_torch_dispatch_stack() == 0
    original = torch.Tensor.__dict__["__torch_function__"]
    torch.Tensor.__torch_function__ = classmethod(lambda cls, func, types, args=(), kwargs=None: None)
    try:
        assert "torch.Tensor.__torch_function__" in g.tampered()
    finally:
        g.restore()
    assert torch.Tensor.__dict__["__torch_function__"] is original and g.tampered() == []


def test_integrity_guard_sees_stand_in_library_modules_and_hooks_left_on():
    """sys.modules["torch"] (or torch.nn.functional) swapped for a stand-in is what the reference imports next
    (the corpus's fake_torch_module PASSED with zeros); a trace or profile hook left on runs inside every later harness
    call. Both are tampering, and restore puts the module and the hooks back."""
    import sys
    import threading
    import types

    g = IntegrityGuard()
    real, functional = sys.modules["torch"], torch.nn.functional
    sys.modules["torch"] = types.ModuleType("torch")
    torch.nn.functional = types.ModuleType("torch.nn.functional")
    try:
        assert {"sys.modules[torch]", "torch.nn.functional"} <= set(g.tampered())
    finally:
        g.restore()
    assert sys.modules["torch"] is real and torch.nn.functional is functional and g.tampered() == []
    import builtins

    real_bool = builtins.bool  # error_stats reads "any non-finite?" through bool(...)
    builtins.bool = lambda x=False: False
    try:
        assert g.tampered() == ["builtins.bool"]
    finally:
        assert g.restore() == ["builtins.bool"]
    assert builtins.bool is real_bool
    event = torch.cuda.Event  # what the cuda_event timer reads at every timing
    torch.cuda.Event = type("Event", (), {})
    assert g.tampered() == ["torch.cuda.Event"] and g.restore() == ["torch.cuda.Event"]
    assert torch.cuda.Event is event
    hook = sys.getprofile()
    sys.setprofile(lambda frame, event, arg: None)
    threading.settrace(lambda frame, event, arg: None)
    assert g.tampered() == ["trace / profile hooks (sys.settrace, sys.setprofile, threading, sys.monitoring)"]
    g.restore()
    assert sys.getprofile() is hook and threading.gettrace() is None and g.tampered() == []
