"""Group a campaign's candidate runs by solution and rank them (pure helpers for ``decide``)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from kernelopt.data.records import CandidateRecord, ChampionInfo

#: Run statuses of evaluations that never completed (a killed process leaves RUNNING behind).
INCOMPLETE_STATUSES = frozenset({"RUNNING", "SCHEDULED", "KILLED"})


def completed(records: list[CandidateRecord]) -> list[CandidateRecord]:
    """Records of evaluations that completed (whatever their verdict)."""
    return [r for r in records if r.status.upper() not in INCOMPLETE_STATUSES]


def is_champion(g: SolutionRuns, champion: ChampionInfo | None) -> bool:
    """``g`` is the registered champion: its run, or the same solution measured again (a resumed or later
    campaign's runs of it registered the same kernel as a new version); a provisional champion's solution may
    still be promoted with the full runs it lacked. The controller's rule and ``kernelopt promote``'s."""
    if champion is None:
        return False
    same = champion.solution_hash is not None and champion.solution_hash == g.solution_hash
    return champion.run_id in g.run_ids or (same and champion.provisional is None)


@dataclass
class SolutionRuns:
    """Every completed run of one solution in a campaign.

    Attributes:
        solution_hash: The solution's content hash.
        gate: Its first representative-gate run (``None`` when it was only swept).
        full: Its full runs (the sweep, then repeats), oldest first.
    """

    solution_hash: str
    gate: CandidateRecord | None = None
    full: list[CandidateRecord] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        """Canonical run of the solution: the gate run, else the first full run."""
        return (self.gate or self.full[0]).run_id

    @property
    def run_ids(self) -> set[str]:
        """Every run of the solution: its gate run and its full runs."""
        return {r.run_id for r in ([self.gate] if self.gate else []) + self.full}

    @property
    def name(self) -> str:
        """Solution name."""
        return (self.gate or self.full[0]).name

    @property
    def parent_run_id(self) -> str | None:
        """Run the solution was generated from."""
        return (self.gate or self.full[0]).parent_run_id

    @property
    def direction(self) -> str | None:
        """Direction it was generated along."""
        return (self.gate or self.full[0]).direction

    @property
    def gate_passed(self) -> bool:
        """The gate run PASSED on every gate workload."""
        return self.gate is not None and self.gate.all_passed and self.gate.mean_latency_ms is not None

    @property
    def gate_mean(self) -> float | None:
        """Mean gate latency (ms) when the gate passed."""
        return self.gate.mean_latency_ms if self.gate_passed else None  # type: ignore[union-attr]

    @property
    def swept(self) -> bool:
        """A full sweep of the solution has completed."""
        return any(r.stage == "sweep" for r in self.full)

    @property
    def full_passed(self) -> bool:
        """It has full runs and every workload PASSED in every one of them."""
        return bool(self.full) and all(r.all_passed and r.mean_latency_ms is not None for r in self.full)

    @property
    def full_means(self) -> list[float]:
        """Per-run mean latency (ms) of every full run that has one."""
        return [r.mean_latency_ms for r in self.full if r.mean_latency_ms is not None]

    @property
    def full_mean(self) -> float | None:
        """Mean over full runs of the per-run mean latency (the decision metric), if all passed."""
        return statistics.fmean(self.full_means) if self.full_passed else None

    @property
    def full_p95(self) -> float | None:
        """Mean p95 latency over full runs that report one."""
        vals = [r.p95_latency_ms for r in self.full if r.p95_latency_ms is not None]
        return statistics.fmean(vals) if vals else None

    @property
    def full_rel_std(self) -> float:
        """Relative sample standard deviation of the per-run means (0 with fewer than 2 runs)."""
        m = self.full_means
        if len(m) < 2:
            return 0.0
        return statistics.stdev(m) / statistics.fmean(m)

    def latency_on(self, uuids: set[str]) -> float | None:
        """Mean latency (ms) on the workloads ``uuids``: the gate mean when it was gated on exactly that set
        (or ``uuids`` is empty), else its full-run means there; ``None`` when not measured on all of them."""
        gated = set(self.gate.per_workload_ms) if self.gate is not None else set()
        if self.gate_mean is not None and (not uuids or gated == uuids):
            return self.gate_mean
        pw = self.per_workload_mean()
        if uuids and uuids <= set(pw):
            return sum(pw[u] for u in uuids) / len(uuids)
        return None

    def per_workload_mean(self) -> dict[str, float]:
        """Per-workload latency (ms) averaged over the full runs that measured it."""
        acc: dict[str, list[float]] = {}
        for r in self.full:
            for uuid, ms in r.per_workload_ms.items():
                acc.setdefault(uuid, []).append(ms)
        return {u: statistics.fmean(v) for u, v in acc.items()}


def group_by_solution(records: list[CandidateRecord]) -> list[SolutionRuns]:
    """Completed runs grouped by solution hash, in order of first appearance."""
    groups: dict[str, SolutionRuns] = {}
    for r in sorted(completed(records), key=lambda r: r.start_time):
        g = groups.setdefault(r.solution_hash, SolutionRuns(r.solution_hash))
        if r.stage == "gate":
            if g.gate is None:
                g.gate = r
        else:
            g.full.append(r)
    return list(groups.values())


def rank_key(s: SolutionRuns) -> tuple[float, float, float, str]:
    """Sort key of fully-passed solutions: repeat mean, then mean p95, then variance, then hash."""
    inf = float("inf")
    mean = s.full_mean if s.full_mean is not None else inf
    p95 = s.full_p95 if s.full_p95 is not None else inf
    return (mean, p95, s.full_rel_std, s.solution_hash)


def best_full(groups: list[SolutionRuns]) -> SolutionRuns | None:
    """The best fully-passed solution by :func:`rank_key`."""
    ok = [g for g in groups if g.full_passed]
    return min(ok, key=rank_key) if ok else None


def best_gate(groups: list[SolutionRuns]) -> SolutionRuns | None:
    """The gate passer with the lowest gate latency (hash breaks ties)."""
    ok = [g for g in groups if g.gate_passed]
    return min(ok, key=lambda g: (g.gate_mean, g.solution_hash)) if ok else None
