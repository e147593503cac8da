"""Typed structured-config schemas for every Hydra config group.

Each group's YAML files are merged onto these dataclasses, so an unknown key or a value of the
wrong type fails at composition time, before any work starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


class AgentMode(str, Enum):
    """Full-Agent sees only the task and harness feedback; Agent-Assisted also gets skills,
    curated references, the band analysis and the controller's direction."""

    full_agent = "full_agent"
    agent_assisted = "agent_assisted"


class HarnessPreset(str, Enum):
    """``official`` = 10/50/3 (contest); ``quick`` = small counts for the CPU interpreter;
    ``auto`` = official on a GPU, quick on the CPU."""

    auto = "auto"
    official = "official"
    quick = "quick"


class TimerChoice(str, Enum):
    """Which timer the harness may use."""

    auto = "auto"
    cupti = "cupti"
    cuda_event = "cuda_event"
    cpu_wall = "cpu_wall"


class StaticPolicy(str, Enum):
    """How strictly candidate sources are scanned against ``operators/<def>/policy.json``."""

    off = "off"
    library = "library"
    strict = "strict"


class ExecutorKind(str, Enum):
    """Where harness work runs."""

    auto = "auto"
    local = "local"
    isolated = "isolated"
    cpu = "cpu"
    ray = "ray"


class NetworkMode(str, Enum):
    """Network sandbox of evaluation workers (:mod:`kernelopt.executor.netns`): ``isolated`` where the kernel
    allows it (else the host network, with a warning and the reason recorded), ``required`` (refuse to evaluate
    unisolated) or ``host``."""

    isolated = "isolated"
    required = "required"
    host = "host"


class FilesMode(str, Enum):
    """Read-only mounts of evaluation workers (:mod:`kernelopt.executor.readonly_mounts`): ``readonly`` where the
    kernel allows it (else writable, with a warning and the reason recorded; writes are still detected),
    ``required`` (refuse to evaluate without) or ``writable``."""

    readonly = "readonly"
    required = "required"
    writable = "writable"


@dataclass
class OperatorConf:
    """Which definition to work on and how to pick its workloads."""

    name: str = MISSING
    gate_size: int = 3
    cpu_workload_limit: int | None = 4
    workloads: list[str] | None = None
    workload_sample: int | None = None  # run only this many workloads spread over the size range


@dataclass
class AgentConf:
    """Agent mode (what the generator is shown)."""

    mode: AgentMode = AgentMode.agent_assisted
    skills: list[str] = field(default_factory=list)


@dataclass
class GeneratorConf:
    """Candidate generator backend."""

    name: str = "offline"
    model: str | None = None
    temperature: float = 0.7
    max_tokens: int = 8192
    timeout_s: float = 600.0
    max_retries: int = 4
    base_url: str | None = None
    command: str | None = None
    max_turns: int = 30


@dataclass
class ControllerConf:
    """Budgets, stop rules and gate sizes."""

    name: str = "v1"
    max_candidates: int = 12
    max_rounds: int = 8
    wall_clock_s: float = 1800.0
    patience: int = 3
    candidates_per_round: int = 3
    finalists: int = 2
    repeats: int = 2
    noise_floor_default: float = 0.02
    min_improvement: float = 0.01
    p95_tolerance: float = 0.05
    # candidates the evidence-driven controller asks for on a direction's first try from a parent (the
    # direction's own move); null asks for a full round (candidates_per_round). 1 is what
    # benchmarks/controller_efficiency.py measures (benchmarks/results/controller_efficiency_*_h200_*.md)
    probe_candidates: int | None = 1
    # defer a direction that lost this many times and never won, across parents (null: off; the default 2 since
    # 2026-12-01, see kernelopt/controller/budget.py Rules.defer_lost_after)
    defer_lost_after: int | None = 2
    # what a band dispatch must improve: mean_latency (summed latency, the paper's metric) or mean_speedup
    # (mean of per-workload speedups, the contest's score; kernelopt/controller/specialise.py)
    dispatch_objective: str = "mean_latency"
    # gate a band's round on the band's gate joined to the campaign's representative gate (false: the band's gate
    # alone, as before 2026-12-04; kernelopt/controller/budget.py Rules.band_gate_with_representatives)
    band_gate_with_representatives: bool = True
    # let the offline generator's GP surrogate of the seed space pick candidates: rbf or additive; null (default)
    # never - replayed over every H200 table it lost to the evidence walk alone more often than it won
    # (benchmarks/results/surrogate_ablation.md). Turns: neighbours (default: the evidence rounds' extra
    # candidates), alternate, always, on_loss, race (rounds of its own, direction model_guided; race: while its rounds
    # find new bests at least as often as the walk's). Offline generator only.
    # kernelopt/controller/surrogate_turn.py
    surrogate: str | None = None
    surrogate_ls: float = 0.5
    surrogate_kappa: float = 1.0
    surrogate_turns: str = "neighbours"
    # on a GPU with device ceilings: profile the baseline on one workload per band (torch.profiler, plus
    # Nsight Compute where ncu exists) and take the bands' bottleneck classes from the profiles
    profile_bands: bool = True
    # on a GPU whose model has no device ceilings (kernelopt/analysis/ceilings/*.json or the ceilings cache): measure
    # them once before the analysis (python -m kernelopt.harness.ceilings; ~10 s) and keep them in the cache
    measure_ceilings: bool = True


@dataclass
class HarnessConf:
    """Check and timing settings (None = take the preset's / operator's value)."""

    preset: HarnessPreset = HarnessPreset.auto
    warmup: int | None = None
    iterations: int | None = None
    trials: int | None = None
    atol: float | None = None
    rtol: float | None = None
    required_matched_ratio: float | None = None
    timeout_s: float = 300.0
    timer: TimerChoice = TimerChoice.auto
    flush_l2: bool = True
    time_reference: bool = True
    # reference timings shared by the workers of one run (false: every worker times the reference itself)
    cache_reference_timing: bool = True
    seed: int = 0
    # anti-cheat guards beyond the defaults (see kernelopt/harness/run_guards.py)
    replay_check: bool = False
    precision_probe: bool = False
    static_policy: StaticPolicy = StaticPolicy.library


@dataclass
class ExecutorConf:
    """Worker processes."""

    kind: ExecutorKind = ExecutorKind.auto
    devices: list[int] | None = None
    timeout_s: float | None = None
    address: str | None = None
    network: NetworkMode = NetworkMode.isolated
    files: FilesMode = FilesMode.readonly
    keep_built: int = 8  # built solutions a worker keeps (least recently used released first; >= 1)


@dataclass
class TrackingConf:
    """MLflow tracking store (None = sqlite:///mlruns/mlflow.db under the working directory)."""

    uri: str | None = None
    artifact_root: str | None = None


@dataclass
class CampaignConf:
    """One campaign: resume id, seed, name, solutions to gate beside the seeds in the baseline round, and
    whether finished gate/sweep runs of the same solution and settings in earlier campaigns are adopted."""

    resume: str | None = None
    seed: int = 0
    name: str | None = None
    include: list[str] = field(default_factory=list)
    reuse_across_campaigns: bool = True


@dataclass
class OptimizeConfig:
    """`kernelopt optimize`."""

    operator: OperatorConf = field(default_factory=OperatorConf)
    agent: AgentConf = field(default_factory=AgentConf)
    generator: GeneratorConf = field(default_factory=GeneratorConf)
    controller: ControllerConf = field(default_factory=ControllerConf)
    harness: HarnessConf = field(default_factory=HarnessConf)
    executor: ExecutorConf = field(default_factory=ExecutorConf)
    tracking: TrackingConf = field(default_factory=TrackingConf)
    campaign: CampaignConf = field(default_factory=CampaignConf)
    experiment: str | None = None


@dataclass
class EvaluateConfig:
    """`kernelopt evaluate`."""

    operator: OperatorConf = field(default_factory=OperatorConf)
    harness: HarnessConf = field(default_factory=HarnessConf)
    executor: ExecutorConf = field(default_factory=ExecutorConf)
    solution: str = MISSING
    workloads: list[str] | None = None
    limit: int | None = None
    output: str | None = None
    profile: str | None = None  # JSON file for per-workload profiles (torch.profiler; ncu on a GPU)
    # skip the workloads `output` already holds an evaluation of this solution for (a run that was cut short)
    resume: bool = False


GROUPS: dict[str, Any] = {
    "operator": OperatorConf, "agent": AgentConf, "generator": GeneratorConf,
    "controller": ControllerConf, "harness": HarnessConf, "executor": ExecutorConf,
    "tracking": TrackingConf,
}


def register_schemas() -> None:
    """Register the schemas with Hydra's ConfigStore (idempotent)."""
    cs = ConfigStore.instance()
    cs.store(name="optimize_schema", node=OptimizeConfig)
    cs.store(name="evaluate_schema", node=EvaluateConfig)
    for group, node in GROUPS.items():
        cs.store(group=group, name=f"{group}_schema", node=node)
