"""FlashInfer Trace ``Trace`` / ``Evaluation`` records (one line of a traces JSONL)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import Field, field_serializer, field_validator, model_validator

from kernelopt.data.base import FIBModel, decode_float, encode_float
from kernelopt.data.workload import Workload


class EvaluationStatus(str, Enum):
    """Official statuses, plus kernelopt's ``REJECTED`` (an anti-cheat guard fired)."""

    PASSED = "PASSED"
    INCORRECT_SHAPE = "INCORRECT_SHAPE"
    INCORRECT_NUMERICAL = "INCORRECT_NUMERICAL"
    INCORRECT_DTYPE = "INCORRECT_DTYPE"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    COMPILE_ERROR = "COMPILE_ERROR"
    TIMEOUT = "TIMEOUT"
    REJECTED = "REJECTED"


class _Floats(FIBModel):
    """Mixin: float fields accept/emit the string spellings of NaN and inf."""

    @field_validator("*", mode="before")
    @classmethod
    def _dec(cls, v: Any) -> Any:
        return decode_float(v)

    @field_serializer("*", when_used="json")
    def _enc(self, v: Any) -> Any:
        return encode_float(v) if isinstance(v, float) else v


class Correctness(_Floats):
    """Error statistics of a solution's outputs against the reference."""

    max_relative_error: float
    max_absolute_error: float
    extra: dict[str, Any] | None = None


class Performance(_Floats):
    """Official latency figures (ms); speedup is versus the Python reference."""

    latency_ms: float
    reference_latency_ms: float | None = None
    speedup_factor: float | None = None


class Environment(FIBModel):
    """Where an evaluation ran."""

    hardware: str
    libs: dict[str, str] = Field(default_factory=dict)


class Evaluation(FIBModel):
    """Outcome of evaluating one solution on one workload."""

    status: EvaluationStatus
    environment: Environment
    timestamp: str
    log: str = ""
    correctness: Correctness | None = None
    performance: Performance | None = None

    @model_validator(mode="after")
    def _invariants(self) -> Evaluation:
        s = self.status
        if s == EvaluationStatus.PASSED:
            if self.correctness is None or self.performance is None:
                raise ValueError("status PASSED needs both correctness and performance")
        elif s in (EvaluationStatus.INCORRECT_NUMERICAL, EvaluationStatus.REJECTED):
            if self.performance is not None:
                raise ValueError(f"status {s.value} may not carry performance")
        elif self.correctness is not None or self.performance is not None:
            raise ValueError(f"status {s.value} may carry neither correctness nor performance")
        return self


class Trace(FIBModel):
    """One JSONL line: a workload, optionally with a solution name and its evaluation."""

    definition: str
    workload: Workload
    solution: str | None = None
    evaluation: Evaluation | None = None


def measured_on(traces: list[Trace]) -> list[str]:
    """The hardware names the timed traces in ``traces`` record (sorted; a trace without figures, e.g. of a worker
    that died, may name no hardware)."""
    return sorted({t.evaluation.environment.hardware for t in traces
                   if t.evaluation is not None and t.evaluation.performance is not None})


def measured_on_other_hardware(traces: list[Trace], hardware: str) -> list[str]:
    """:func:`measured_on` but ``hardware``: a resumed sweep must not add this machine's figures to theirs (one
    table, one card)."""
    return [h for h in measured_on(traces) if h != hardware]


def other_card(traces: list[Trace], hardware: str | None) -> str | None:
    """``"measured on <cards>; this machine evaluates on <hardware>"`` when ``traces`` hold timed figures of other
    hardware than ``hardware`` (the card of the first new result), else ``None``: a resumed file must not mix cards.
    Each resume path raises it with its own remedy (another output file, another traces folder)."""
    cards = measured_on_other_hardware(traces, str(hardware))
    return f"measured on {', '.join(cards)}; this machine evaluates on {hardware}" if cards else None
