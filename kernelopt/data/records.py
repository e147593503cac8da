"""kernelopt's own records: the worker boundary (EvalRequest -> EvalResult) and the
controller's vocabulary (Evidence, Decision, CandidateRecord). Plain pydantic, JSON in/out."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.data.definition import Definition
from kernelopt.data.solution import Solution
from kernelopt.data.trace import (
    Correctness,
    Environment,
    Evaluation,
    EvaluationStatus,
    Performance,
    Trace,
)
from kernelopt.data.workload import Workload

TimerName = Literal["cupti", "cuda_event", "cpu_wall"]

#: The line after which an executor appends a worker's output to a workload's log.
WORKER_OUTPUT_MARK = "--- worker output (tail) ---"


class Record(BaseModel):
    """Strict base for kernelopt records: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class HarnessSettings(Record):
    """How the harness checks and times (official defaults: 10/50/3, atol=rtol=1e-2)."""

    warmup: int = Field(10, ge=0)
    iterations: int = Field(50, ge=1)
    trials: int = Field(3, ge=1)
    atol: float = Field(1e-2, ge=0)
    rtol: float = Field(1e-2, ge=0)
    required_matched_ratio: float = Field(1.0, ge=0, le=1)
    timeout_s: float = Field(300.0, gt=0)
    timer: Literal["auto", "cupti", "cuda_event", "cpu_wall"] = "auto"
    flush_l2: bool = True
    time_reference: bool = True
    cache_reference_timing: bool = True
    reference_time_budget_s: float = Field(2.0, ge=0)  # per trial; 0 = official counts always
    # a call slower than this (ms, quickest untimed call) is timed with CUDA events instead of CUPTI:
    # tracing thousands of launches per call (GDN's per-head reference loops) costs minutes of host
    # time, and for a multi-millisecond call the two spans differ by the launch latency only; 0 = never
    cupti_max_call_ms: float = Field(5.0, ge=0)
    # reference outputs kept per worker for the next candidates on the same inputs (MiB; 0 = off)
    reference_cache_mb: int = Field(2048, ge=0)
    # generated inputs kept per worker (pristine copies; each use gets a clone) (MiB; 0 = off)
    input_cache_mb: int = Field(4096, ge=0)
    poison_outputs: bool = True
    check_input_mutation: bool = True
    seed: int = 0
    device: str = "auto"
    # Anti-cheat guards (REFERENCE §7; kernelopt.harness.guards / replay / static_policy).
    recheck_outputs: bool = True  # outputs of the last timed call and of a random earlier one compared with the
    # reference again
    check_threads: bool = True  # Python threads a call leaves running -> REJECTED
    same_address_probe: bool = True  # one extra call: new values written into the same input tensors
    replay_check: bool = False  # second timing pass with fresh inputs every timed iteration
    replay_max_gap: float = Field(0.05, ge=0)  # flag when fresh-input latency exceeds official by more
    static_policy: Literal["off", "library", "strict"] = "library"  # operators/<def>/policy.json bans
    precision_probe: bool = False  # the policy's tighter tolerance on top of the official one
    protect_files: bool = True  # kernelopt/ and operators/<def>/ hashed before/after each workload
    roofline_floor: bool = True  # CUDA only: latency below bytes / peak bandwidth -> REJECTED

    def key(self) -> str:
        """Stable identity of the settings that change verdicts or figures (for dedup)."""
        d = self.model_dump()
        d.pop("timeout_s", None)
        d.pop("device", None)
        return ",".join(f"{k}={d[k]}" for k in sorted(d))


class LatencyStats(Record):
    """Latency of one workload (ms): official mean-of-trial-medians plus spread."""

    mean_ms: float
    trial_medians_ms: list[float]
    p95_ms: float | None = None
    ci95_low_ms: float | None = None
    ci95_high_ms: float | None = None
    timer: TimerName


class WorkloadResult(Record):
    """Verdict and figures for one (solution, workload)."""

    uuid: str
    axes: dict[str, int]
    status: EvaluationStatus
    latency: LatencyStats | None = None
    reference_latency: LatencyStats | None = None
    speedup: float | None = None
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    matched_ratio: float | None = None
    log: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """True when the status is PASSED."""
        return self.status == EvaluationStatus.PASSED

    def failure_line(self, build_log: str = "", limit: int = 300) -> str:
        """``STATUS: last log line`` (the build log's when the workload's own is empty). For an executor fault
        (``extra["executor_fault"]``) the last line before the worker's output: the fault's own ("worker crashed
        (killed by signal SIGSEGV (11))...", not the end of the faulthandler dump after it)."""
        status = getattr(self.status, "value", self.status)
        log = self.log or build_log
        if self.extra.get("executor_fault"):
            log = log.split(WORKER_OUTPUT_MARK)[0]
        lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
        return f"{status}: {lines[-1] if lines else ''}"[:limit]


class EvalRequest(Record):
    """Work for a harness worker: one solution over some workloads."""

    definition: Definition
    solution: Solution
    workloads: list[Workload] = Field(min_length=1)
    settings: HarnessSettings = Field(default_factory=HarnessSettings)
    evaluator: str | None = None  # default chosen from the definition name
    profile: bool = False
    #: seconds each profiler child (torch.profiler, ncu) may run per workload; None: the harness default (300 s)
    profile_timeout_s: float | None = Field(None, gt=0)


class EvalResult(Record):
    """Answer of a harness worker."""

    definition: str
    solution: str
    solution_hash: str
    results: list[WorkloadResult]
    environment: dict[str, Any] = Field(default_factory=dict)
    timer: TimerName | None = None
    build_log: str = ""
    wall_s: float = 0.0
    profile: dict[str, Any] | None = None

    @property
    def all_passed(self) -> bool:
        """True when every workload PASSED."""
        return bool(self.results) and all(r.passed for r in self.results)

    def failure_line(self, limit: int = 300) -> str | None:
        """``STATUS: last log line`` of the first workload that did not pass (``None`` when all passed): what
        the controller's repair table (``skills/failures.md``) matches."""
        bad = next((r for r in self.results if not r.passed), None)
        return None if bad is None else bad.failure_line(self.build_log or "", limit)

    @property
    def pass_count(self) -> int:
        """Number of PASSED workloads."""
        return sum(r.passed for r in self.results)

    def mean_latency_ms(self) -> float | None:
        """Mean latency over workloads (None unless all passed)."""
        if not self.all_passed:
            return None
        return sum(r.latency.mean_ms for r in self.results) / len(self.results)  # type: ignore[union-attr]

    def to_traces(self, definition: Definition, workloads: list[Workload], timestamp: str) -> list[Trace]:
        """FlashInfer Trace lines for this result (workloads matched by UUID)."""
        by_uuid = {w.uuid: w for w in workloads}
        env = Environment(
            hardware=str(self.environment.get("hardware", "unknown")),
            libs={k: str(v) for k, v in (self.environment.get("libs") or {}).items()},
        )
        out = []
        for r in self.results:
            corr = perf = None
            if r.status in (EvaluationStatus.PASSED, EvaluationStatus.INCORRECT_NUMERICAL):
                extra = {"matched_ratio": r.matched_ratio} if r.matched_ratio is not None else None
                corr = Correctness(
                    max_relative_error=_f(r.max_rel_error), max_absolute_error=_f(r.max_abs_error),
                    extra=extra,
                )
            if r.status == EvaluationStatus.PASSED and r.latency is not None:
                perf = Performance(
                    latency_ms=r.latency.mean_ms,
                    reference_latency_ms=r.reference_latency.mean_ms if r.reference_latency else None,
                    speedup_factor=r.speedup,
                )
            ev = Evaluation(status=r.status, environment=env, timestamp=timestamp, log=r.log[-5_000_000:],
                            correctness=corr, performance=perf)
            out.append(Trace(definition=definition.name, workload=by_uuid[r.uuid],
                             solution=self.solution, evaluation=ev))
        return out


def _f(x: float | None) -> float:
    return math.nan if x is None else x


class Evidence(Record):
    """A measured fact the controller may rest a decision on."""

    kind: str  # e.g. "latency", "noise_floor", "band_share", "bottleneck", "roofline"
    subject: str  # run id, band or workload the fact is about
    value: float | str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


DecisionAction = Literal["generate", "gate", "sweep", "repeat", "promote", "stop"]


class Decision(Record):
    """What the controller decided for the next step, and why."""

    action: DecisionAction
    reason: str
    parent_run_id: str | None = None
    candidate_run_ids: list[str] = Field(default_factory=list)
    band: str | None = None
    direction: str | None = None
    count: int = 0
    workloads: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)


#: The direction of a controller decision that asks the generator for the points its surrogate model of the parent's
#: seed space rates best (the controller's ``surrogate`` rule; the offline generator's GP-LCB,
#: :mod:`kernelopt.generators.surrogate`)
MODEL_GUIDED = "model_guided"

#: Run metric: wall seconds a candidate's evaluation took (logged by the campaign, read back into
#: ``CandidateRecord.eval_wall_s``; the controller prices evaluations with it).
EVAL_WALL_S = "eval_wall_s"

#: Run metrics of LLM usage: per candidate run (its reply's tokens and cost) and, on the campaign run one step per
#: round, those of the replies that gave no candidate (the generators log them, the comparison sums them)
TOKEN_METRICS = ("llm_input_tokens", "llm_output_tokens")
COST_METRIC = "llm_cost_usd"
FAILED_TOKEN_METRICS = ("llm_failed_input_tokens", "llm_failed_output_tokens")
FAILED_COST_METRIC = "llm_failed_cost_usd"


class CandidateRecord(Record):
    """The controller's view of one evaluated candidate (rebuilt from the tracking store)."""

    run_id: str
    name: str
    solution_hash: str
    stage: Literal["gate", "sweep", "repeat"]
    parent_run_id: str | None = None
    direction: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    pass_count: int = 0
    workload_count: int = 0
    mean_latency_ms: float | None = None
    p95_latency_ms: float | None = None
    per_workload_ms: dict[str, float] = Field(default_factory=dict)
    status: str = "UNKNOWN"
    start_time: float = 0.0
    failure: str | None = None  # EvalResult.failure_line() of a run that did not pass every workload
    eval_wall_s: float | None = None  # wall seconds its evaluation took (None: not recorded)
    workload_wall_s: dict[str, float] = Field(default_factory=dict)  # harness seconds per workload uuid

    @property
    def all_passed(self) -> bool:
        """Every evaluated workload PASSED."""
        return self.workload_count > 0 and self.pass_count == self.workload_count


class ChampionInfo(Record):
    """The registry's current champion for a definition."""

    run_id: str
    version: str | None = None
    mean_latency_ms: float
    p95_latency_ms: float | None = None
    per_workload_ms: dict[str, float] = Field(default_factory=dict)
    noise_floor: float | None = None  # relative (e.g. 0.02 = 2 %)
    provisional: str | None = None  # set when promoted at a wall-clock stop with fewer full runs than required
    solution_hash: str | None = None  # the champion's solution (its later runs, e.g. of a resumed campaign, are it)


class CampaignState(Record):
    """Everything the controller may know, rebuilt from the tracking store alone."""

    campaign_run_id: str
    definition: str
    candidates: list[CandidateRecord] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    champion: ChampionInfo | None = None
    elapsed_s: float = 0.0
    gate_workloads: list[str] = Field(default_factory=list)
    all_workloads: list[str] = Field(default_factory=list)
    analysis: dict[str, Any] | None = None  # bands.json (kernelopt.analysis.campaign_analysis); None = controller v1
