"""Per-definition correctness evaluators (FIB ``bench/evaluators/registry.py``, first match by name).

* ``default``: the official rule (:mod:`kernelopt.harness.correctness`) on every output.
* ``lowbit`` (name contains ``moe_fp8_block_scale``): same rule, reports ``matched_ratio``.
* ``dsa_sparse_attention``: value-returning solutions may return ``output`` or ``(output, lse)``;
  only returned tensors are compared (under DPS both); positions where solution and reference hold
  the same infinity (lse of a token with no valid index is -inf) count as matched.
* ``dsa_topk_indexer``: indices are checked for reachability, uniqueness and count, then compared by
  the sorted weighted-ReLU scores they select (:mod:`kernelopt.harness.indexer_scores`).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from kernelopt.data.definition import Definition
from kernelopt.data.records import HarnessSettings
from kernelopt.data.trace import EvaluationStatus
from kernelopt.harness.correctness import TrialVerdict, check_structure, compare_outputs, error_stats
from kernelopt.harness.dtypes import torch_dtype
from kernelopt.harness.indexer_scores import indexer_scores, validate_indices


class OutputFormatError(ValueError):
    """A value-returning solution returned something that cannot be matched to the outputs."""


def _as_tensor(value: Any, dtype: torch.dtype, device: torch.device) -> Any:
    if isinstance(value, torch.Tensor):
        return value  # never moved or converted here: the guards check type and device as returned
    if isinstance(value, (bool, int, float)):
        return torch.tensor(value, dtype=dtype, device=device)
    raise OutputFormatError(f"returned a {type(value).__name__}; expected torch.Tensor outputs")


class Evaluator:
    """Default evaluator: all outputs, official tolerance rule."""

    name = "default"
    report_ratio = False

    def normalize(self, definition: Definition, result: Any, device: torch.device) -> list[torch.Tensor]:
        """Turn a value-returning solution's result into outputs in definition order."""
        names = list(definition.outputs)
        dtypes = [torch_dtype(s.dtype) for s in definition.outputs.values()]
        if isinstance(result, dict):
            missing = [n for n in names if n not in result]
            if missing:
                raise OutputFormatError(f"returned dict lacks outputs {missing}")
            values = [result[n] for n in names]
        elif isinstance(result, (tuple, list)):
            if len(result) != len(names):
                raise OutputFormatError(f"returned {len(result)} values but the definition has "
                                        f"{len(names)} outputs {names}")
            values = list(result)
        elif len(names) == 1:
            values = [result]
        else:
            raise OutputFormatError(f"returned a single {type(result).__name__} but the definition has "
                                    f"{len(names)} outputs {names}")
        return [_as_tensor(v, d, device) for v, d in zip(values, dtypes)]

    def check(self, definition: Definition, inputs: dict[str, Any], outs: list[torch.Tensor],
              refs: dict[str, torch.Tensor], settings: HarnessSettings) -> TrialVerdict:
        """Compare one trial's solution outputs with the reference outputs."""
        names = list(definition.outputs)[: len(outs)]
        return compare_outputs(names, outs, [refs[n] for n in names], settings.atol, settings.rtol,
                               settings.required_matched_ratio, report_ratio=self.report_ratio)


class LowBitEvaluator(Evaluator):
    """MoE FP8 block-scale: the default rule, reporting the matched ratio."""

    name = "lowbit"
    report_ratio = True


class DsaSparseAttentionEvaluator(Evaluator):
    """DSA sparse attention: ``output`` alone or ``(output, lse)``; shared infinities match."""

    name = "dsa_sparse_attention"

    def normalize(self, definition: Definition, result: Any, device: torch.device) -> list[torch.Tensor]:
        names = list(definition.outputs)
        dtypes = [torch_dtype(s.dtype) for s in definition.outputs.values()]
        if isinstance(result, dict):
            values = [result[n] for n in names if n in result]
            if names[0] not in result:
                raise OutputFormatError(f"returned dict lacks '{names[0]}'")
        elif isinstance(result, (tuple, list)):
            if not 1 <= len(result) <= len(names):
                raise OutputFormatError(f"returned {len(result)} values; expected 1 or {len(names)}")
            values = list(result)
        else:
            values = [result]
        return [_as_tensor(v, d, device) for v, d in zip(values, dtypes)]

    def check(self, definition: Definition, inputs: dict[str, Any], outs: list[torch.Tensor],
              refs: dict[str, torch.Tensor], settings: HarnessSettings) -> TrialVerdict:
        names = list(definition.outputs)[: len(outs)]
        return compare_outputs(names, outs, [refs[n] for n in names], settings.atol, settings.rtol,
                               settings.required_matched_ratio, shared_inf_ok=True)


class DsaTopkIndexerEvaluator(Evaluator):
    """DSA top-k indexer: set quality, not order (FIB PR #354)."""

    name = "dsa_topk_indexer"

    def check(self, definition: Definition, inputs: dict[str, Any], outs: list[torch.Tensor],
              refs: dict[str, torch.Tensor], settings: HarnessSettings) -> TrialVerdict:
        name = next(iter(definition.outputs))
        sol, ref = outs[0], refs[name]
        bad = check_structure(name, sol, ref)
        if bad is not None:
            return bad
        page_size = definition.const_axes.get("page_size", 64)
        problems = validate_indices(sol, inputs["seq_lens"], inputs["block_table"], page_size)
        if problems:
            return TrialVerdict(EvaluationStatus.INCORRECT_NUMERICAL, math.inf, math.inf, 0.0,
                                "invalid top-k indices: " + "; ".join(problems[:10])
                                + (f"; (+{len(problems) - 10} more)" if len(problems) > 10 else ""))
        args = (inputs["q_index_fp8"], inputs["k_index_cache_fp8"], inputs["weights"])
        both = indexer_scores(*args, torch.cat([ref, sol], dim=1), page_size)
        ref_scores, sol_scores = both.split(ref.shape[1], dim=1)
        ref_sorted = ref_scores.sort(dim=1, descending=True).values
        sol_sorted = sol_scores.sort(dim=1, descending=True).values
        st = error_stats(sol_sorted, ref_sorted, settings.atol, settings.rtol,
                         settings.required_matched_ratio, shared_inf_ok=True)
        v = TrialVerdict(None, st.max_abs, st.max_rel, st.matched_ratio)
        if st.failed:
            v.status = EvaluationStatus.INCORRECT_NUMERICAL
            v.message = (f"selected-score mismatch: matched ratio {st.matched_ratio:.6f} < "
                         f"{settings.required_matched_ratio} (max abs {st.max_abs:.4g}, "
                         f"max rel {st.max_rel:.4g})")
        return v


EVALUATORS: dict[str, type[Evaluator]] = {
    e.name: e for e in (Evaluator, LowBitEvaluator, DsaSparseAttentionEvaluator, DsaTopkIndexerEvaluator)
}


def select_evaluator(definition: Definition, override: str | None = None) -> Evaluator:
    """The evaluator for a definition: ``override`` by name, else the first match by definition name.

    Raises:
        ValueError: ``override`` names no evaluator.
    """
    if override:
        if override not in EVALUATORS:
            raise ValueError(f"unknown evaluator '{override}'; known: {sorted(EVALUATORS)}")
        return EVALUATORS[override]()
    name = definition.name
    if name.startswith("dsa_topk_indexer"):
        return DsaTopkIndexerEvaluator()
    if name.startswith("dsa_sparse_attention"):
        return DsaSparseAttentionEvaluator()
    if "moe_fp8_block_scale" in name:
        return LowBitEvaluator()
    return Evaluator()
