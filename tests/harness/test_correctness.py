"""The official tolerance rule and the per-output checks."""

from __future__ import annotations

import math

import torch

from kernelopt.data import EvaluationStatus as S
from kernelopt.harness.correctness import compare_outputs, error_stats


def test_element_fails_only_when_both_abs_and_rel_exceed():
    ref = torch.tensor([100.0, 0.001, 1.0, 1.0])
    out = torch.tensor([100.5, 0.009, 1.005, 1.5])
    # 100.5: abs .5 > .01 but rel .005 <= .01 -> ok; 0.009: rel 8 > .01 but abs .008 <= .01 -> ok;
    # 1.005: both small -> ok; 1.5: abs .5 and rel .5 -> fails.
    st = error_stats(out, ref, atol=1e-2, rtol=1e-2)
    assert st.matched_ratio == 0.75 and st.failed
    assert st.max_abs == 0.5 and math.isclose(st.max_rel, 8.0, rel_tol=1e-4)


def test_matched_ratio_threshold():
    ref = torch.zeros(10)
    out = torch.zeros(10)
    out[:1] = 5.0  # one bad element of ten
    assert not error_stats(out, ref, 1.0, 0.3, required_matched_ratio=0.9).failed
    assert error_stats(out, ref, 1.0, 0.3, required_matched_ratio=0.95).failed
    assert error_stats(out, ref, 1.0, 0.3, required_matched_ratio=0.9).matched_ratio == 0.9


def test_relative_error_uses_eps_for_zero_reference():
    st = error_stats(torch.tensor([1e-9]), torch.tensor([0.0]), atol=0.0, rtol=0.0)
    assert math.isclose(st.max_rel, 1e-9 / 1e-8, rel_tol=1e-5)


def test_shape_then_dtype_then_nonfinite_checks():
    ref = [torch.zeros(2, 3, dtype=torch.bfloat16)]
    v = compare_outputs(["o"], [torch.zeros(3, 2, dtype=torch.bfloat16)], ref, 1e-2, 1e-2)
    assert v.status == S.INCORRECT_SHAPE and "(3, 2)" in v.message
    v = compare_outputs(["o"], [torch.zeros(2, 3, dtype=torch.float32)], ref, 1e-2, 1e-2)
    assert v.status == S.INCORRECT_DTYPE
    bad = torch.zeros(2, 3, dtype=torch.bfloat16)
    bad[0, 0] = float("inf")
    v = compare_outputs(["o"], [bad], ref, 1e-2, 1e-2)
    assert v.status == S.INCORRECT_NUMERICAL and math.isinf(v.max_abs)
    bad[0, 0] = float("nan")
    v = compare_outputs(["o"], [bad], ref, 1e-2, 1e-2)
    assert v.status == S.INCORRECT_NUMERICAL and math.isnan(v.max_abs)


def test_maxima_over_outputs_and_ratio_reported():
    refs = [torch.ones(4), torch.ones(4)]
    outs = [torch.ones(4) + 0.001, torch.ones(4) + 0.002]
    v = compare_outputs(["a", "b"], outs, refs, 1e-2, 1e-2, report_ratio=True)
    assert v.status is None and math.isclose(v.max_abs, 0.002, rel_tol=1e-3) and v.matched_ratio == 1.0


def test_shared_infinities_match_only_when_allowed():
    ref = torch.tensor([float("-inf"), 1.0])
    same = torch.tensor([float("-inf"), 1.0])
    st = error_stats(same, ref, 1e-2, 1e-2, shared_inf_ok=True)
    assert not st.failed and st.max_abs == 0.0
    v = compare_outputs(["lse"], [same], [ref], 1e-2, 1e-2)  # official default: any inf fails
    assert v.status == S.INCORRECT_NUMERICAL
    wrong = torch.tensor([float("inf"), 1.0])
    st = error_stats(wrong, ref, 1e-2, 1e-2, shared_inf_ok=True)
    assert st.failed and math.isinf(st.max_abs)
    nan = torch.tensor([float("nan"), 1.0])
    assert error_stats(nan, ref, 1e-2, 1e-2, shared_inf_ok=True).failed
