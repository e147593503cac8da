"""Which workloads a campaign runs: the subset for quick runs and the representative gate (pure)."""

from __future__ import annotations

from kernelopt.data.workload import Workload


def workload_size(w: Workload) -> int:
    """Total axis product of a workload's var axes (its size for ordering)."""
    n = 1
    for v in w.axes.values():
        n *= int(v)
    return n


def by_size(workloads: list[Workload]) -> list[Workload]:
    """Workloads ordered by size, UUID breaking ties (deterministic)."""
    return sorted(workloads, key=lambda w: (workload_size(w), w.uuid))


def select_workloads(workloads: list[Workload], wanted: list[str] | None = None,
                     limit: int | None = None) -> list[Workload]:
    """The campaign's workloads: those whose UUID starts with one of ``wanted`` (all when ``None``),
    then at most ``limit`` of them, the smallest first; the result keeps the file order.

    Raises:
        ValueError: a ``wanted`` entry matches no workload, or ``limit`` < 1.
    """
    chosen = list(workloads)
    if wanted:
        missing = [x for x in wanted if not any(w.uuid.startswith(x) for w in workloads)]
        if missing:
            raise ValueError(f"workloads: no workload UUID starts with {missing}")
        chosen = [w for w in workloads if any(w.uuid.startswith(x) for x in wanted)]
    if limit is not None:
        if limit < 1:
            raise ValueError(f"workload_limit must be >= 1, got {limit}")
        keep = {w.uuid for w in by_size(chosen)[:limit]}
        chosen = [w for w in chosen if w.uuid in keep]
    return chosen


def representative(workloads: list[Workload], k: int) -> list[Workload]:
    """``k`` representative workloads spread evenly over the size order.

    With ``k = 3``: the smallest, the median and the largest by total axis product; in general the
    workloads at positions ``round(i * (n - 1) / (k - 1))`` of the size order (all when ``k >= n``;
    the median when ``k = 1``). Returned smallest first.
    """
    ordered = by_size(workloads)
    n = len(ordered)
    if k >= n:
        return ordered
    if k == 1:
        return [ordered[(n - 1) // 2]]
    idx = sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})
    return [ordered[i] for i in idx]
