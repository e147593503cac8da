"""The official correctness rule (FIB ``compute_error_stats`` + default evaluator checks).

Per output tensor, in order: shape mismatch -> ``INCORRECT_SHAPE``; dtype mismatch ->
``INCORRECT_DTYPE``; any NaN/inf in the solution's output -> ``INCORRECT_NUMERICAL``; then on float32
copies ``abs = |x - y|``, ``rel = abs / (|y| + 1e-8)``; an element fails iff ``abs > atol and
rel > rtol``; ``matched_ratio = 1 - fails / numel``; incorrect iff ``matched_ratio < required``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from kernelopt.data.trace import EvaluationStatus

EPS = 1e-8


@dataclass
class ErrorStats:
    """Error statistics of one solution tensor against its reference."""

    max_abs: float
    max_rel: float
    matched_ratio: float
    failed: bool


@dataclass
class TrialVerdict:
    """Outcome of comparing one trial's outputs; ``status`` is ``None`` when they are correct."""

    status: EvaluationStatus | None
    max_abs: float = 0.0
    max_rel: float = 0.0
    matched_ratio: float | None = None
    message: str = ""
    extra: dict = field(default_factory=dict)


def error_stats(out: torch.Tensor, ref: torch.Tensor, atol: float, rtol: float,
                required_matched_ratio: float = 1.0, *, shared_inf_ok: bool = False) -> ErrorStats:
    """Abs-and-rel tolerance rule with a matched-ratio threshold.

    Args:
        out: Solution tensor (any dtype; compared as float32).
        ref: Reference tensor of the same shape.
        atol: Absolute tolerance.
        rtol: Relative tolerance (relative to ``|ref| + 1e-8``).
        required_matched_ratio: Fraction of elements that must be within tolerance.
        shared_inf_ok: Count positions where both tensors hold the same infinity (or both NaN) as
            matched and leave them out of the maxima (sparse-attention lse, padded top-k scores);
            any other non-finite position fails with infinite error.

    Returns:
        The statistics; ``failed`` is ``matched_ratio < required_matched_ratio``.
    """
    x = out.detach().to(torch.float32).reshape(-1)
    y = ref.detach().to(torch.float32).reshape(-1)
    if x.numel() == 0:
        return ErrorStats(0.0, 0.0, 1.0, False)
    finite = torch.isfinite(x) & torch.isfinite(y)
    if shared_inf_ok:
        shared = (torch.isnan(x) & torch.isnan(y)) | (torch.isinf(x) & torch.isinf(y) & (x == y))
    else:
        shared = torch.zeros_like(finite)
    bad_nonfinite = ~finite & ~shared
    abs_err = torch.where(finite, (x - y).abs(), torch.zeros_like(x))
    rel_err = abs_err / (y.abs().where(finite, torch.ones_like(y)) + EPS)
    fails = bad_nonfinite | (finite & (abs_err > atol) & (rel_err > rtol))
    n_fail = int(fails.sum().item())
    matched = max(0.0, min(1.0, 1.0 - n_fail / x.numel()))
    if bool(bad_nonfinite.any().item()):
        max_abs = max_rel = math.inf
    else:
        max_abs = float(abs_err.max().item())
        max_rel = float(rel_err.max().item())
    return ErrorStats(max_abs, max_rel, matched, matched < required_matched_ratio)


def check_structure(name: str, out: torch.Tensor, ref: torch.Tensor) -> TrialVerdict | None:
    """Shape then dtype check of one output; ``None`` when both match."""
    if tuple(out.shape) != tuple(ref.shape):
        return TrialVerdict(EvaluationStatus.INCORRECT_SHAPE,
                            message=f"output '{name}': shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
    if out.dtype != ref.dtype:
        return TrialVerdict(EvaluationStatus.INCORRECT_DTYPE,
                            message=f"output '{name}': dtype {out.dtype}, expected {ref.dtype}")
    return None


def nonfinite_verdict(name: str, out: torch.Tensor) -> TrialVerdict | None:
    """``INCORRECT_NUMERICAL`` with inf/nan errors if the solution output holds inf or NaN."""
    if not out.is_floating_point():
        return None
    x = out.detach()
    if x.dtype not in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        x = x.to(torch.float32)
    n_inf = int(torch.isinf(x).sum().item())
    n_nan = int(torch.isnan(x).sum().item())
    if n_inf == 0 and n_nan == 0:
        return None
    err = math.inf if n_inf else math.nan
    return TrialVerdict(EvaluationStatus.INCORRECT_NUMERICAL, err, err, 0.0,
                        f"output '{name}': {n_nan} NaN and {n_inf} inf values "
                        "(NaN also marks elements the kernel never wrote)")


def compare_outputs(names: list[str], outs: list[torch.Tensor], refs: list[torch.Tensor], atol: float,
                    rtol: float, required_matched_ratio: float = 1.0, *, shared_inf_ok: bool = False,
                    report_ratio: bool = False) -> TrialVerdict:
    """Apply the official rule to every output of one trial (maxima over outputs).

    Args:
        names: Output names (for messages).
        outs: Solution outputs, in definition order.
        refs: Reference outputs, same order and length as ``outs``.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        required_matched_ratio: Matched-ratio threshold.
        shared_inf_ok: See :func:`error_stats`; also disables the any-non-finite check.
        report_ratio: Record the (minimum) matched ratio in the verdict.

    Returns:
        The trial verdict (``status is None`` when correct).
    """
    v = TrialVerdict(None, matched_ratio=1.0 if report_ratio else None)
    for name, out, ref in zip(names, outs, refs):
        bad = check_structure(name, out, ref)
        if bad is None and not shared_inf_ok:
            bad = nonfinite_verdict(name, out)
        if bad is not None:
            return bad
        st = error_stats(out, ref, atol, rtol, required_matched_ratio, shared_inf_ok=shared_inf_ok)
        v.max_abs, v.max_rel = max(v.max_abs, st.max_abs), max(v.max_rel, st.max_rel)
        if report_ratio:
            v.matched_ratio = min(1.0 if v.matched_ratio is None else v.matched_ratio, st.matched_ratio)
        if st.failed and v.status is None:
            v.status = EvaluationStatus.INCORRECT_NUMERICAL
            v.message = (f"output '{name}': matched ratio {st.matched_ratio:.6f} < required "
                         f"{required_matched_ratio} (atol={atol}, rtol={rtol}; max abs {st.max_abs:.4g}, "
                         f"max rel {st.max_rel:.4g})")
    return v
