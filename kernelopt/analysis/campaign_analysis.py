"""The campaign's evidence bundle (``bands.json``): bands, per-workload roofline bounds and a
bottleneck class per band, plus the skill table the controller maps classes to directions with.

Built once from the baseline sweep by :mod:`kernelopt.campaign` and handed to the (pure) controller
as ``CampaignState.analysis``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kernelopt.analysis.bands import discover_bands
from kernelopt.analysis.bottleneck import SKILL_FILE, classify, classify_from_roofline, load_bottleneck_table
from kernelopt.analysis.profile_parse import bottleneck_metrics
from kernelopt.analysis.roofline import load_ceilings, load_roofline, load_roofline_module, workload_bounds
from kernelopt.data.definition import Definition
from kernelopt.data.workload import Workload

#: Version of the ``bands.json`` layout.
ANALYSIS_VERSION = 1


def band_roofline(band_workloads: list[str], bounds: dict[str, dict[str, Any]],
                  latencies: dict[str, float]) -> tuple[float | None, float | None, str | None]:
    """(summed bound ms, summed measured ms, majority limiter) of a band; None parts when unknown."""
    uuids = [u for u in band_workloads if u in latencies]
    if not uuids:
        return None, None, None
    measured = sum(latencies[u] for u in uuids)
    if any("bound_ms" not in bounds.get(u, {}) for u in uuids):
        return None, measured, None
    bound = sum(bounds[u]["bound_ms"] for u in uuids)
    mem = sum(bounds[u]["bound_ms"] for u in uuids if bounds[u].get("limiter") == "memory")
    return bound, measured, "memory" if mem >= bound - mem else "compute"


def analyse_operator(definition: Definition, workloads: list[Workload], operator_dir: Path,
                     latencies: dict[str, float] | None, device_name: str | None, *,
                     skill_file: Path = SKILL_FILE, max_bands: int = 4) -> dict[str, Any]:
    """Bands, roofline bounds and per-band bottleneck classes for one operator.

    Args:
        definition: The operator definition.
        workloads: The campaign's workloads.
        operator_dir: ``operators/<definition>/`` (its ``roofline.py`` and band hints).
        latencies: UUID -> ms of the baseline sweep (None: bands by the roofline-bytes proxy).
        device_name: Hardware name from the evaluation environment (ceilings by name; CPU -> none).
        skill_file: The bottleneck skill (thresholds and direction map).
        max_bands: Upper limit on natural-break bands.

    Returns:
        The JSON-ready ``bands.json`` dict (also ``CampaignState.analysis``).
    """
    module = load_roofline_module(operator_dir)
    roof = load_roofline(operator_dir)
    const = {a: spec.value for a, spec in definition.axes.items() if spec.type == "const"}
    ceilings = load_ceilings(device_name)
    bounds = workload_bounds(roof, const, {w.uuid: w.axes for w in workloads}, ceilings) if roof else {}
    lat = {w.uuid: latencies[w.uuid] for w in workloads if latencies and w.uuid in latencies}
    use_lat = lat if latencies and len(lat) == len(workloads) else None
    proxy = {u: float(b["bytes"]) for u, b in bounds.items()} if bounds else None
    bands = discover_bands(definition, workloads, use_lat, max_bands, proxy=proxy,
                           band_axis=getattr(module, "BAND_AXIS", None),
                           regime_breaks=getattr(module, "REGIME_BREAKS", None))
    notes = list(bands.notes)
    if Path(skill_file).is_file():
        table = load_bottleneck_table(skill_file)
    else:
        table = {"thresholds": None, "directions": {}}
        notes.append(f"{skill_file} missing: no bottleneck classes or direction map")
    classes: dict[str, dict[str, Any]] = {}
    for band in bands.bands if table["thresholds"] else []:
        bound, measured, limiter = band_roofline(band.workloads, bounds, lat)
        if measured is None or ceilings is None:  # no device ceilings (CPU): no class
            continue
        n = len([u for u in band.workloads if u in lat])
        cls, ev = classify_from_roofline(None if bound is None else bound / n, measured / n,
                                         table["thresholds"], limiter=limiter)
        classes[band.name] = {"class": cls, "source": "roofline", "evidence": ev}
    if ceilings is None:
        notes.append(f"no ceilings for device {device_name!r}: no roofline bounds and no bottleneck classes")
    if roof is None:
        notes.append(f"{operator_dir}/roofline.py missing: no roofline")
    return {
        "version": ANALYSIS_VERSION, "definition": definition.name, "device": device_name,
        "ceilings": ceilings.model_dump() if ceilings else None, "bands": bands.to_dict(),
        "workloads": bounds, "latencies": lat, "bottlenecks": classes,
        "thresholds": table["thresholds"], "directions": table["directions"], "notes": notes,
    }


def band_probes(analysis: dict[str, Any]) -> dict[str, str]:
    """One workload per band to profile: the band's middle workload by latency (``band -> uuid``)."""
    lat = analysis.get("latencies") or {}
    out: dict[str, str] = {}
    for band in analysis["bands"]["bands"]:
        ws = sorted(band["workloads"], key=lambda u: (lat.get(u, 0.0), u))
        if ws:
            out[band["name"]] = ws[len(ws) // 2]
    return out


def apply_profiles(analysis: dict[str, Any], probes: dict[str, str],
                   profiles: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``analysis`` with each probed band's bottleneck class taken from its workload's profile
    (``source: "profile"``; :func:`~kernelopt.analysis.bottleneck.classify` on
    :func:`~kernelopt.analysis.profile_parse.bottleneck_metrics`, with the analysis's latency of the workload,
    the profiled baseline's, for the span's idle share, measured instead where the profile has the official
    loop's span anatomy) where the profile carries metrics;
    other bands keep their roofline class. Returns a new dict (the input is not changed)."""
    out = {**analysis, "bottlenecks": dict(analysis.get("bottlenecks") or {}), "notes": list(analysis.get("notes") or [])}
    thresholds = analysis.get("thresholds")
    for band, uuid in probes.items():
        metrics = bottleneck_metrics(profiles.get(uuid) or {}, (analysis.get("latencies") or {}).get(uuid))
        if not metrics or not thresholds:
            out["notes"].append(f"band {band}: no profile metrics for workload {uuid}; roofline class kept")
            continue
        try:
            prior = (out["bottlenecks"].get(band) or {})
            cls, ev = classify(metrics, thresholds,
                               prior.get("evidence") if prior.get("source") == "roofline" else None)
        except ValueError as exc:
            out["notes"].append(f"band {band}: profile not classifiable ({exc}); roofline class kept")
            continue
        out["bottlenecks"][band] = {"class": cls, "source": "profile", "evidence": {**ev, "workload": uuid}}
    return out
