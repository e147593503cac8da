"""Campaign budget and the controller's decision rules (plain config, validated)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Budget(BaseModel):
    """How much a campaign may spend before it stops.

    Attributes:
        max_candidates: Distinct candidate solutions that may be gated (the baseline seeds count).
        max_rounds: Generation rounds after the baseline round (a generation asking for k candidates
            counts min(1, k / candidates_per_round) rounds: one-candidate probes are a third of a round).
        wall_clock_s: Wall-clock seconds since the campaign started (a hard stop).
        patience: Generation rounds in a row without a promotion before the campaign stops (counted as
            for ``max_rounds``).
        candidates_per_round: Candidates the generator is asked for in one round.
    """

    model_config = ConfigDict(extra="forbid")

    max_candidates: int = Field(24, ge=1)
    max_rounds: int = Field(8, ge=0)
    wall_clock_s: float = Field(3600.0, gt=0)
    patience: int = Field(3, ge=1)
    candidates_per_round: int = Field(3, ge=1)


class Rules(BaseModel):
    """How evidence turns into decisions (REFERENCE §6.4-6.5).

    Attributes:
        gate_size: Representative workloads every candidate is gated on.
        finalists: Gate passers (best gate latency first) that earn a full sweep per step.
        repeats: Full runs (the sweep counts as the first) a finalist needs before promotion.
        noise_floor_default: Relative run-to-run noise assumed until repeats measure it.
        min_improvement: Least relative gain over the champion; ``None`` means 1 %. The gain
            must exceed ``max(noise floor, min_improvement)``.
        p95_tolerance: Relative amount by which a promoted candidate's p95 may exceed the champion's.
        directions: Fallback optimisation directions for parents whose runs name none.
        roofline_target: Roofline fraction (bound / measured) every band must reach for the
            evidence-driven controller to stop early (only with ``CampaignState.analysis`` bounds).
        probe_candidates: Candidates the evidence-driven controller asks for on a direction's first
            try from a parent (the direction's own move; capped by ``candidates_per_round``);
            ``None`` (default) asks for a full round. With a generator whose extra candidates are
            random neighbours (the offline generator), 1 spends the budget on the evidence-chosen
            moves only. Widening rounds (every direction tried) always ask for a full round.
        defer_lost_after: When set (default 2), a direction that has lost this many times in the campaign
            and never won (its measured record, :func:`kernelopt.controller.search.direction_record`) is
            deferred across parents: the best parent with an untried direction that is not deferred goes
            first, and deferred directions come back only when no such pair is left. ``None``: off, a
            parent's untried directions are all tried before the runner-up's. The default since 2026-12-01:
            replayed over all eight tables measured on the H200 (24 table x budget configurations, 20 seeds
            each) it is equal or better on every one (gemm 0.36 -> 0.32 at budget 48, MoE 0.90 -> 0.85 at 12,
            persistent GDN decode 1.16 -> 1.10 at 24; ``benchmarks/results/controller_efficiency_*``).
        dispatch_objective: What a band dispatch must improve (:mod:`kernelopt.controller.specialise`):
            ``"mean_latency"`` (default; the summed latency, as the paper reports) or ``"mean_speedup"``
            (the mean of per-workload speedups over the best single solution, as the contest scores).
        band_gate_with_representatives: A round the evidence-driven controller generates for one band (step 10
            of :func:`kernelopt.controller.decide.decide`) is gated on the band's gate
            (:func:`~kernelopt.controller.evidence.band_gate`) joined to the campaign's representative gate
            (default ``True``); ``False`` gates it on the band's workloads alone. The default since 2026-12-04:
            a band-only gate tells the controller nothing about the candidate elsewhere, so its sweep bar, parent
            ranking and direction record compare band-gated candidates on one band while the campaign is judged
            on all. Replayed (with the replay gating on the decisions' workloads, as campaigns do) over the eleven
            H200 tables, 37 table x budget configurations, 20 seeds each: better on 17, equal on 19 (GDN decode's
            192-point space 0.76 -> 0.58 at budget 48, gemm 0.39 -> 0.32 at 48, gemm184 0.35 -> 0.28 at 48;
            worse on rmsnorm at 48 only, 0.23 -> 0.25; ``benchmarks/results/controller_efficiency_*``).
        repair_directions: Failure-line substring -> directions to try first when nothing has passed yet
            (the repair step of :func:`kernelopt.controller.decide`); campaigns load it from
            ``skills/failures.md`` (:func:`kernelopt.analysis.failures.load_failure_table`).
        surrogate: When set (``"rbf"`` or ``"additive"``), the evidence-driven controller lets the generator's
            surrogate model of the seed space pick candidates (:mod:`kernelopt.controller.surrogate_turn`); ``None``
            (default): never - replayed over the 38 H200 table x budget configurations it beat the evidence walk
            alone on fewer configurations than it lost (``benchmarks/results/surrogate_ablation.md``). Needs the
            offline generator (campaigns refuse it with another).
        surrogate_ls: The rbf kernel's length scale over parameter levels scaled to [0, 1].
        surrogate_kappa: The lower confidence bound's weight on the model's uncertainty (``mu - kappa * sd``).
        surrogate_turns: Which rounds go to the surrogate: ``"neighbours"`` (default; none: it picks the evidence
            rounds' candidates beyond the direction's own move), ``"alternate"``, ``"always"``, ``"on_loss"`` or ``"race"`` (the
            surrogate while its rounds find new bests at least as often as the walk's).
    """

    model_config = ConfigDict(extra="forbid")

    gate_size: int = Field(3, ge=1)
    finalists: int = Field(2, ge=1)
    repeats: int = Field(2, ge=1)
    noise_floor_default: float = Field(0.02, ge=0, lt=1)
    min_improvement: float | None = Field(None, ge=0, lt=1)
    p95_tolerance: float = Field(0.05, ge=0)
    directions: list[str] = Field(default_factory=list)
    roofline_target: float = Field(0.8, gt=0, le=1)
    probe_candidates: int | None = Field(None, ge=1)
    defer_lost_after: int | None = Field(2, ge=1)
    dispatch_objective: Literal["mean_latency", "mean_speedup"] = "mean_latency"
    band_gate_with_representatives: bool = True
    repair_directions: dict[str, list[str]] = Field(default_factory=dict)
    surrogate: Literal["rbf", "additive"] | None = None
    surrogate_ls: float = Field(0.5, gt=0)
    surrogate_kappa: float = Field(1.0, ge=0)
    surrogate_turns: Literal["alternate", "always", "on_loss", "neighbours", "race"] = "neighbours"

    @model_validator(mode="after")
    def _unique_directions(self) -> Rules:
        if len(set(self.directions)) != len(self.directions):
            raise ValueError(f"rules.directions: duplicate names in {self.directions}")
        return self

    def threshold(self, noise_floor: float) -> float:
        """Relative gain a candidate must exceed to beat the champion."""
        floor = 0.01 if self.min_improvement is None else self.min_improvement
        return max(noise_floor, floor)
