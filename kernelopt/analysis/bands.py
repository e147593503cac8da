"""Shape discovery: group a definition's workloads into bands and rank them by latency share.

Algorithm (deterministic; REFERENCE §6.2):

1. **Varying axes** — var axes with more than one value among the workloads. An axis that is a
   one-to-one function of an earlier one (``len_cu_seqlens = num_seqs + 1``) is *coupled* to it and
   not banded on.
2. **Cost** per workload — the measured latency when given (the decision metric), else a proxy
   (roofline bytes, else the product of the var axes); ``cost_source`` says which.
3. **Band axis** — the one given (operators may declare ``BAND_AXIS``), else the varying axis whose
   values have the largest |Spearman rank correlation| with the cost (ties: more distinct values,
   then definition order). The other varying axes are recorded per band (coupled regimes).
4. **Breaks** — known regime edges first (``REGIME_BREAKS``: inclusive upper edges), then greedy
   divisive natural breaks: repeatedly cut the segment/position (between adjacent distinct values)
   that most reduces the workload-weighted within-band sum of squares of the axis values (linear
   scale when the axis spans < 100×, log2 otherwise), until ``max_bands`` bands or the best cut
   gains < 5 % of the total sum of squares.
5. **Outliers** (latencies only) — workloads carrying ≥ 1/3 of the total latency each leave their
   band (unless it already has ≤ 2 workloads) and form one outlier band (at most three workloads
   can qualify; the heavy ones of one band are kept together, e.g. MoE's two long rows); a band of
   ≤ 2 workloads with ≥ 1/3 share is marked ``outlier``.
6. **Representatives** (gate) — the median workload of the band with the most workloads
   (dominant), the costliest workload (latency-heavy) and the lower edge of the band with the
   largest share (boundary); duplicates dropped.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.data.definition import Definition
from kernelopt.data.workload import Workload

OUTLIER_SHARE = 1.0 / 3.0
MIN_GAIN = 0.05
CostSource = Literal["latency", "roofline_bytes", "axis_product"]


class Band(BaseModel):
    """One band of workloads along the band axis."""

    model_config = ConfigDict(extra="forbid")

    name: str
    axis: str
    low: int
    high: int
    workloads: list[str]
    axis_ranges: dict[str, list[int]] = Field(default_factory=dict)
    cost: float = 0.0
    share: float = 0.0
    outlier: bool = False


class BandAnalysis(BaseModel):
    """Result of :func:`discover_bands` (``to_dict`` is the ``bands.json`` artefact)."""

    model_config = ConfigDict(extra="forbid")

    definition: str
    varying_axes: list[str]
    coupled_axes: dict[str, str] = Field(default_factory=dict)
    band_axis: str | None
    cost_source: CostSource
    total_cost: float
    bands: list[Band]
    representatives: list[str]
    representative_roles: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    # UUID -> its values of the varying axes, and the varying axes a composed solution can read from a required
    # input's shape (where a band can split again behind a nested dispatch: controller/specialise.py)
    workload_axes: dict[str, dict[str, int]] = Field(default_factory=dict)
    dispatch_axes: list[str] = Field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return self.model_dump(mode="json")

    def band_of(self, uuid: str) -> Band:
        """The band holding a workload UUID."""
        for b in self.bands:
            if uuid in b.workloads:
                return b
        raise KeyError(f"{self.definition}: workload {uuid} is in no band")


def _ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0
        i = j + 1
    return ranks


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman rank correlation (0 when either side is constant)."""
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return 0.0 if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)


def _coupled(workloads: list[Workload], axes: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, a in enumerate(axes):
        for b in axes[i + 1:]:
            if b in out or a in out:
                continue
            fwd: dict[int, set[int]] = {}
            back: dict[int, set[int]] = {}
            for w in workloads:
                fwd.setdefault(w.axes[a], set()).add(w.axes[b])
                back.setdefault(w.axes[b], set()).add(w.axes[a])
            if all(len(v) == 1 for v in fwd.values()) and all(len(v) == 1 for v in back.values()):
                out[b] = a
    return out


def _sse(points: list[tuple[float, int]]) -> float:
    n = sum(c for _, c in points)
    if n == 0:
        return 0.0
    mean = sum(x * c for x, c in points) / n
    return sum(c * (x - mean) ** 2 for x, c in points)


def natural_breaks(values: list[int], max_bands: int, fixed: list[int] = ()) -> list[list[int]]:
    """Split workload axis values (one entry per workload) into contiguous groups of distinct values.

    Args:
        values: The band-axis value of every workload.
        max_bands: Upper limit on groups (fixed breaks may exceed it).
        fixed: Inclusive upper edges that must separate groups.

    Returns:
        Groups of distinct values, ascending.
    """
    counts: dict[int, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    distinct = sorted(counts)
    use_log = distinct[0] > 0 and distinct[-1] / distinct[0] >= 100
    scale = (lambda v: math.log2(v)) if use_log else (lambda v: float(v))
    segs: list[list[int]] = [[]]
    for v in distinct:
        if segs[-1] and any(segs[-1][-1] <= e < v for e in fixed):
            segs.append([])
        segs[-1].append(v)
    total = _sse([(scale(v), counts[v]) for v in distinct])
    while len(segs) < max_bands and total > 0:
        best: tuple[float, int, int] | None = None
        for si, seg in enumerate(segs):
            whole = _sse([(scale(v), counts[v]) for v in seg])
            for cut in range(1, len(seg)):
                gain = whole - _sse([(scale(v), counts[v]) for v in seg[:cut]]) \
                    - _sse([(scale(v), counts[v]) for v in seg[cut:]])
                if best is None or gain > best[0] + 1e-12:
                    best = (gain, si, cut)
        if best is None or best[0] < MIN_GAIN * total:
            break
        _, si, cut = best
        segs[si:si + 1] = [segs[si][:cut], segs[si][cut:]]
    return segs


def _band(axis: str, ws: list[Workload], varying: list[str], cost: dict[str, float], outlier: bool = False) -> Band:
    vals = [w.axes[axis] for w in ws]
    lo, hi = min(vals), max(vals)
    name = f"{axis} {lo}" if lo == hi else f"{axis} {lo}-{hi}"
    if outlier:
        name += " (outlier)"
    ranges = {a: [min(w.axes[a] for w in ws), max(w.axes[a] for w in ws)] for a in varying}
    return Band(name=name, axis=axis, low=lo, high=hi, workloads=[w.uuid for w in ws], axis_ranges=ranges,
                cost=sum(cost[w.uuid] for w in ws), outlier=outlier)


def _cost(workloads: list[Workload], latencies: dict[str, float] | None,
          proxy: dict[str, float] | None) -> tuple[dict[str, float], CostSource]:
    if latencies is not None:
        missing = [w.uuid for w in workloads if w.uuid not in latencies]
        if missing:
            raise ValueError(f"discover_bands: latencies missing for workloads {missing[:5]}")
        return {w.uuid: float(latencies[w.uuid]) for w in workloads}, "latency"
    if proxy is not None:
        missing = [w.uuid for w in workloads if w.uuid not in proxy]
        if missing:
            raise ValueError(f"discover_bands: proxy cost missing for workloads {missing[:5]}")
        return {w.uuid: float(proxy[w.uuid]) for w in workloads}, "roofline_bytes"
    return {w.uuid: float(math.prod(w.axes.values()) or 1) for w in workloads}, "axis_product"


def _pick_axis(candidates: list[str], workloads: list[Workload], cost: dict[str, float]) -> str:
    ys = [cost[w.uuid] for w in workloads]

    def key(a: str) -> tuple[float, int, int]:
        xs = [float(w.axes[a]) for w in workloads]
        return (-round(abs(spearman(xs, ys)), 9), -len(set(xs)), candidates.index(a))

    return min(candidates, key=key)


def _split_outliers(bands: list[Band], by_uuid: dict[str, Workload], varying: list[str],
                    cost: dict[str, float], total: float) -> list[Band]:
    out: list[Band] = []
    for b in bands:
        heavy = [u for u in b.workloads if total > 0 and cost[u] / total >= OUTLIER_SHARE]
        if heavy and len(b.workloads) > 2:
            rest = [by_uuid[u] for u in b.workloads if u not in heavy]
            out.append(_band(b.axis, rest, varying, cost))
            out.append(_band(b.axis, [by_uuid[u] for u in heavy], varying, cost, outlier=True))
        else:
            out.append(b)
    for b in out:
        b.share = b.cost / total if total > 0 else 0.0
        if len(b.workloads) <= 2 and b.share >= OUTLIER_SHARE:
            b.outlier = True
    return sorted(out, key=lambda b: (b.low, b.high, b.outlier))


def _representatives(bands: list[Band], by_uuid: dict[str, Workload], cost: dict[str, float],
                     k: int) -> dict[str, str]:
    roles: dict[str, str] = {}
    axis = bands[0].axis

    def order(uuids: list[str]) -> list[str]:
        return sorted(uuids, key=lambda u: (by_uuid[u].axes.get(axis, 0) if axis else 0, u))

    dominant = max(bands, key=lambda b: (len(b.workloads), b.share, -b.low))
    ws = order(dominant.workloads)
    roles[ws[(len(ws) - 1) // 2]] = "dominant"
    heavy = max(cost, key=lambda u: (cost[u], u))
    roles.setdefault(heavy, "latency_heavy")
    top = max(bands, key=lambda b: (b.share, -b.low))
    for u in [order(top.workloads)[0], order(dominant.workloads)[-1], order(dominant.workloads)[0]]:
        if len(roles) >= k:
            break
        roles.setdefault(u, "boundary")
    return dict(list(roles.items())[:k])


def discover_bands(definition: Definition, workloads: list[Workload], latencies: dict[str, float] | None = None,
                   max_bands: int = 4, *, proxy: dict[str, float] | None = None, band_axis: str | None = None,
                   regime_breaks: dict[str, list[int]] | None = None, representatives: int = 3) -> BandAnalysis:
    """Group workloads into bands along the axes that really vary (see the module docstring).

    Args:
        definition: The operator definition (its var axes).
        workloads: The workloads to band (at least one).
        latencies: UUID -> measured ms of the current best (the baseline sweep); enables latency shares
            and the one-third outlier rule.
        max_bands: Upper limit on natural-break bands (outlier bands and fixed breaks come on top).
        proxy: UUID -> proxy cost (roofline bytes) used when there are no latencies.
        band_axis: Force the band axis (e.g. the operator's ``BAND_AXIS``).
        regime_breaks: Axis -> known inclusive upper edges of regimes (the operator's ``REGIME_BREAKS``).
        representatives: How many gate workloads to pick (2-3).

    Raises:
        ValueError: no workloads, an unknown band axis, or missing latencies/proxy entries.
    """
    if not workloads:
        raise ValueError(f"discover_bands: {definition.name} has no workloads")
    var = [a for a, spec in definition.axes.items() if spec.type == "var"]
    varying = [a for a in var if len({w.axes.get(a) for w in workloads}) > 1]
    coupled = _coupled(workloads, varying)
    cost, source = _cost(workloads, latencies, proxy)
    notes = []
    if source != "latency":
        notes.append(f"no latencies: shares use the {source} proxy, not measured time; the one-third "
                     f"outlier rule is not applied")
    total = sum(cost.values())
    by_uuid = {w.uuid: w for w in workloads}
    candidates = [a for a in varying if a not in coupled]
    if band_axis is not None and band_axis not in var:
        raise ValueError(f"discover_bands: band_axis {band_axis!r} is not a var axis of {definition.name}")
    axis = band_axis if band_axis in varying else (_pick_axis(candidates, workloads, cost) if candidates else None)
    if axis is None:
        bands = [Band(name="all", axis="", low=0, high=0, workloads=[w.uuid for w in workloads], cost=total)]
    else:
        groups = natural_breaks([w.axes[axis] for w in workloads], max_bands, (regime_breaks or {}).get(axis, []))
        bands = []
        for g in groups:
            members = [w for w in workloads if g[0] <= w.axes[axis] <= g[-1]]
            bands.append(_band(axis, members, varying, cost))
    if source == "latency":
        bands = _split_outliers(bands, by_uuid, varying, cost, total)
    else:
        for b in bands:
            b.share = b.cost / total if total > 0 else 0.0
    roles = _representatives(bands, by_uuid, cost, max(1, representatives))
    return BandAnalysis(definition=definition.name, varying_axes=varying, coupled_axes=coupled, band_axis=axis,
                        cost_source=source, total_cost=total, bands=bands, representatives=list(roles),
                        representative_roles=roles, notes=notes,
                        workload_axes={w.uuid: {a: int(w.axes[a]) for a in varying} for w in workloads},
                        dispatch_axes=[a for a in varying if definition.shape_axis(a) is not None])
