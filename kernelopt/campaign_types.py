"""Campaign configuration, outcome and the tracking-store protocol the loop needs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.controller import Budget, Rules
from kernelopt.data.records import (
    CampaignState,
    ChampionInfo,
    Decision,
    EvalResult,
    HarnessSettings,
)
from kernelopt.data.solution import Solution
from kernelopt.generators.base import AgentMode

Progress = Callable[..., None]


class CampaignConfig(BaseModel):
    """One campaign.

    Attributes:
        operator: Definition name (folder under ``operators/``).
        harness: Harness settings (already merged with the operator's overrides by the caller).
        budget: Spending caps. rules: Decision rules.
        mode: Agent mode. skills: Skill text shown to the generator (Agent-Assisted).
        resume: Campaign run id to continue, or ``None`` to start a new campaign.
        seed: Generator seed.
        gate_workloads: Gate workload UUIDs (default: ``rules.gate_size`` representative ones).
        workloads: UUIDs (or prefixes) of the workloads to run (default: all).
        workload_limit: Keep only this many workloads, the smallest first (quick CPU runs).
        name: Campaign run name. reuse_across_campaigns: Adopt finished evaluations of the same
            solution under the same harness settings from earlier campaigns instead of re-running them.
        tags: Extra campaign tags. record: Extra config recorded with the
            campaign run (e.g. the composed Hydra config).
        evidence: Once the baseline sweep exists, compute the band/roofline/bottleneck analysis
            (artefact ``bands.json``) and let the controller choose band and direction from it.
        profile_bands: With ``evidence`` on a device with ceilings (a GPU), profile the baseline on one
            workload per band and classify those bands from the profiles (``source: "profile"``).
        measure_ceilings: With ``evidence`` on a GPU whose model has no ceilings (shipped or cached), measure
            them once before the analysis (``python -m kernelopt.harness.ceilings --cache`` in a child process).
        include: Solutions gated beside the generator's proposals in the baseline round, ahead of them (e.g. a
            hand-made dispatch or an earlier retained kernel), so the controller may sweep, repeat and promote
            them through the same registry gates and generate from them (their parameters, if any, are a seed
            point's).
    """

    model_config = ConfigDict(extra="forbid")

    operator: str
    harness: HarnessSettings = Field(default_factory=HarnessSettings)
    budget: Budget = Field(default_factory=Budget)
    rules: Rules = Field(default_factory=Rules)
    mode: AgentMode = "full_agent"
    skills: str = ""
    resume: str | None = None
    seed: int = 0
    gate_workloads: list[str] | None = None
    workloads: list[str] | None = None
    workload_limit: int | None = Field(None, ge=1)
    name: str | None = None
    reuse_across_campaigns: bool = True
    tags: dict[str, str] = Field(default_factory=dict)
    record: dict[str, Any] = Field(default_factory=dict)
    evidence: bool = True
    profile_bands: bool = True
    measure_ceilings: bool = True
    include: list[Solution] = Field(default_factory=list)


#: Campaign artefact holding the evidence bundle (kernelopt.analysis.campaign_analysis).
ANALYSIS_ARTIFACT = "bands.json"


@dataclass
class CampaignOutcome:
    """What a campaign ended with."""

    campaign_run_id: str
    operator: str
    stop_reason: str
    champion: ChampionInfo | None = None
    promoted: list[str] = field(default_factory=list)
    gated: int = 0
    evaluations: int = 0
    rounds: int = 0
    decisions: int = 0


class Store(Protocol):
    """The tracking-store methods the loop uses (``kernelopt.tracking.TrackingStore``)."""

    def start_campaign(self, definition: str, config: dict, tags: dict) -> str: ...
    def campaign_exists(self, run_id: str) -> bool: ...
    def log_candidate(self, campaign_run_id: str, solution: Solution, result: EvalResult, *, stage: str,
                      params: dict, decision: Decision | None = None) -> str: ...
    def find_evaluated(self, campaign_run_id: str, solution_hash: str, settings_key: str, stage: str, *,
                       across_campaigns: bool = False) -> str | None: ...
    def adopt_candidate(self, campaign_run_id: str, run_id: str) -> str: ...
    def log_decision(self, campaign_run_id: str, decision: Decision) -> Any: ...
    def load_state(self, campaign_run_id: str) -> CampaignState: ...
    def register(self, definition: str, run_id: str, tags: dict) -> str: ...
    def set_champion(self, definition: str, version: str) -> None: ...
    def get_champion(self, definition: str) -> ChampionInfo | None: ...
    def download_solution(self, run_id: str) -> Solution: ...
    def end_campaign(self, run_id: str, status: str) -> None: ...

