"""Builders of hand-made campaign states for controller tests."""

from __future__ import annotations

from typing import Any

from kernelopt.data.records import CampaignState, CandidateRecord, ChampionInfo, Decision

GATE = ["w-small", "w-mid", "w-large"]
ALL = GATE + ["w-4", "w-5"]


class Clock:
    """Monotonic start times so record order is explicit."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


_clock = Clock()


def rec(run_id: str, sol: str, stage: str, mean: float | None, *, p95: float | None = None,
        passed: int | None = None, n: int | None = None, parent: str | None = None,
        direction: str | None = None, params: dict[str, Any] | None = None,
        per_workload: dict[str, float] | None = None) -> CandidateRecord:
    """One candidate run; ``mean=None`` or ``passed < n`` makes it a failed run."""
    n = n if n is not None else (len(GATE) if stage == "gate" else len(ALL))
    passed = n if passed is None else passed
    return CandidateRecord(
        run_id=run_id, name=f"sol_{sol}", solution_hash=f"hash_{sol}", stage=stage, parent_run_id=parent,
        direction=direction, params=params or {}, pass_count=passed, workload_count=n,
        mean_latency_ms=mean if passed == n else None, p95_latency_ms=p95,
        per_workload_ms=per_workload or {}, status="ALL_PASSED" if passed == n else "FAILED",
        start_time=_clock(),
    )


def state(*cands: CandidateRecord, decisions: list[Decision] | None = None,
          champion: ChampionInfo | None = None, elapsed: float = 0.0) -> CampaignState:
    """A campaign state holding ``cands``."""
    return CampaignState(campaign_run_id="camp", definition="op", candidates=list(cands),
                         decisions=decisions or [], champion=champion, elapsed_s=elapsed,
                         gate_workloads=list(GATE), all_workloads=list(ALL))


def gen(direction: str = "d", parent: str | None = "g1") -> Decision:
    """A past generate decision."""
    return Decision(action="generate", reason="r", parent_run_id=parent, direction=direction)


def promote() -> Decision:
    """A past promote decision."""
    return Decision(action="promote", reason="r", candidate_run_ids=["x"])


def baseline() -> Decision:
    """The past baseline decision."""
    return Decision(action="generate", reason="r", direction="baseline")
