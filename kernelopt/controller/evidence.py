"""Evidence-driven choices for controller v2-lite (pure): per-band latency share, roofline fraction
and bottleneck class from ``CampaignState.analysis`` (the campaign's ``bands.json``) and the parent's
per-workload latencies; the band to work on and the direction its bottleneck calls for.

Rules:

* latencies: the parent's full-run per-workload means, completed by the baseline sweep's
  (``analysis["latencies"]``) for workloads the parent was not swept on;
* band priority: ``share × headroom`` where ``headroom = 1 - roofline fraction`` (1 when no bound is
  known); the highest wins, the lower band edge breaks ties;
* class: a profiled class (``analysis["bottlenecks"][band]["source"] == "profile"``) when present,
  else :func:`kernelopt.analysis.bottleneck.classify_from_roofline` on the band's mean bound/latency;
* direction: the skill's ``directions[class]`` ∩ the parent's directions get a one-try head start
  over the others (fewest tries wins, then skill order, then declared order), narrowed to the band's
  dominant kernel when its profile names one and the seed says which kernel its directions act on
  (:func:`~kernelopt.controller.directions.focus_on_kernel`); with no preferred direction available, the
  v1 round robin (:func:`choose_direction`);
* stop: every band's roofline fraction ≥ ``rules.roofline_target`` (all bands need a bound).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kernelopt.analysis.bottleneck import UNKNOWN, classify_from_roofline
from kernelopt.controller.budget import Rules
from kernelopt.controller.directions import (
    available_directions,
    choose_direction,
    direction_kernels,
    focus_on_kernel,
    tried_counts,
)
from kernelopt.controller.selection import SolutionRuns
from kernelopt.data.records import CandidateRecord, Decision, Evidence


@dataclass
class BandView:
    """One band as the controller sees it now."""

    name: str
    workloads: list[str]
    low: int = 0
    outlier: bool = False
    measured_ms: float = 0.0
    share: float = 0.0
    bound_ms: float | None = None
    fraction: float | None = None
    limiter: str | None = None
    cls: str = UNKNOWN
    cls_evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def dominant_kernel(self) -> str | None:
        """The kernel taking the largest share of the profiled call (``None`` without a profile)."""
        if self.cls_evidence.get("source") != "profile":
            return None
        name = (self.cls_evidence.get("metrics") or {}).get("dominant_kernel")
        return str(name) if name else None

    @property
    def priority(self) -> float:
        """Latency share × headroom to the roofline."""
        return self.share * (1.0 - min(1.0, self.fraction) if self.fraction is not None else 1.0)


def latencies_for(parent: SolutionRuns | None, analysis: dict[str, Any]) -> dict[str, float]:
    """Per-workload ms of the parent's full runs over the baseline sweep's."""
    lat = {str(k): float(v) for k, v in (analysis.get("latencies") or {}).items()}
    if parent is not None and parent.full:
        lat.update(parent.per_workload_mean())
    return lat


def band_views(analysis: dict[str, Any], latencies: dict[str, float]) -> list[BandView]:
    """Share, roofline fraction and class of every band of the analysis under these latencies."""
    bounds = analysis.get("workloads") or {}
    profiled = analysis.get("bottlenecks") or {}
    thresholds = analysis.get("thresholds")
    views = []
    for b in (analysis.get("bands") or {}).get("bands", []):
        v = BandView(name=b["name"], workloads=list(b["workloads"]), low=int(b.get("low", 0)),
                     outlier=bool(b.get("outlier")))
        timed = [u for u in v.workloads if u in latencies]
        v.measured_ms = sum(latencies[u] for u in timed)
        if timed and all("bound_ms" in bounds.get(u, {}) for u in timed):
            v.bound_ms = sum(bounds[u]["bound_ms"] for u in timed)
            v.fraction = v.bound_ms / v.measured_ms if v.measured_ms > 0 else None
            mem = sum(bounds[u]["bound_ms"] for u in timed if bounds[u].get("limiter") == "memory")
            v.limiter = "memory" if mem >= v.bound_ms - mem else "compute"
        prof = profiled.get(v.name) or {}
        if prof.get("source") == "profile":
            v.cls, v.cls_evidence = str(prof["class"]), dict(prof.get("evidence") or {}, source="profile")
        elif timed and thresholds and analysis.get("ceilings"):  # no ceilings (CPU): no class
            n = len(timed)
            v.cls, v.cls_evidence = classify_from_roofline(
                None if v.bound_ms is None else v.bound_ms / n, v.measured_ms / n, thresholds, limiter=v.limiter)
        views.append(v)
    total = sum(v.measured_ms for v in views)
    for v in views:
        v.share = v.measured_ms / total if total > 0 else 0.0
    return views


def roofline_reached(views: list[BandView], target: float) -> bool:
    """Every band has a roofline fraction and it is at least ``target``."""
    return bool(views) and all(v.fraction is not None and v.fraction >= target for v in views)


def band_rows(views: list[BandView]) -> list[Evidence]:
    """``band_share`` and ``roofline`` evidence rows, one each per band."""
    rows = []
    for v in views:
        rows.append(Evidence(kind="band_share", subject=v.name, value=v.share,
                             detail={"measured_ms": v.measured_ms, "workloads": len(v.workloads),
                                     "outlier": v.outlier}))
        rows.append(Evidence(kind="roofline", subject=v.name, value=v.fraction,
                             detail={"bound_ms": v.bound_ms, "measured_ms": v.measured_ms, "limiter": v.limiter}))
    return rows


def choose_band_direction(parent: SolutionRuns, analysis: dict[str, Any], rules: Rules, decisions: list[Decision],
                          candidates: list[CandidateRecord]) -> tuple[str | None, str | None, list[Evidence]]:
    """``(direction, band name, evidence rows)`` for the next generation round from ``parent``."""
    views = band_views(analysis, latencies_for(parent, analysis))
    if not views:
        direction, ev = choose_direction(parent, rules.directions, decisions, candidates)
        return direction, None, [ev]
    band = max(views, key=lambda v: (v.priority, v.share, -v.low))
    bottleneck = Evidence(kind="bottleneck", subject=band.name, value=band.cls,
                          detail={**band.cls_evidence, "priority": band.priority})
    names = available_directions(parent, rules.directions)
    preferred = [n for n in (analysis.get("directions") or {}).get(band.cls, []) if n in names]
    preferred, focus = focus_on_kernel(preferred, names, direction_kernels(parent), band.dominant_kernel)
    if not preferred:
        direction, ev = choose_direction(parent, rules.directions, decisions, candidates)
        ev.detail["band_rule"] = f"no direction of the skill table fits class {band.cls!r}: round robin"
        return direction, band.name, band_rows(views) + [bottleneck, ev]
    counts = tried_counts(parent.run_id, names, decisions, candidates)

    def key(n: str) -> tuple[int, int, int]:
        pref = n in preferred
        return (counts[n] - (1 if pref else 0), 0 if pref else 1,
                preferred.index(n) if pref else names.index(n))

    choice = min(names, key=key)
    ev = Evidence(kind="direction", subject=parent.run_id, value=choice,
                  detail={"available": names, "preferred": preferred, "tried": counts, "band": band.name,
                          "bottleneck": band.cls, **focus,
                          "rule": "skill directions for the band's bottleneck first (one-try head start), "
                                  "then fewest tries, then declared order"})
    return choice, band.name, band_rows(views) + [bottleneck, ev]


def band_gate(analysis: dict[str, Any] | None, band: str | None, campaign_workloads: list[str],
              size: int) -> list[str]:
    """Up to ``size`` of the band's campaign workloads of distinct sizes, spread over the band (first,
    last, middle ...); empty when the band covers every campaign workload (the usual gate then serves)."""
    if not analysis or not band:
        return []
    info = next((b for b in (analysis.get("bands") or {}).get("bands", []) if b["name"] == band), None)
    chosen = set(campaign_workloads)
    mine = [u for u in (info or {}).get("workloads", []) if u in chosen]
    if not mine or len(mine) >= len(chosen):
        return []
    # one workload per distinct size (same roofline bytes and flops: same shape, nothing new to learn)
    sizes = analysis.get("workloads") or {}
    seen: set[tuple[Any, Any]] = set()
    distinct = []
    for u in mine:
        k = (sizes.get(u, {}).get("bytes", u), sizes.get(u, {}).get("flops"))
        if k not in seen:
            seen.add(k)
            distinct.append(u)
    mine = distinct
    if len(mine) <= size:
        return mine
    picks = {round(i * (len(mine) - 1) / (size - 1)) for i in range(size)} if size > 1 else {len(mine) - 1}
    return [mine[i] for i in sorted(picks)]
