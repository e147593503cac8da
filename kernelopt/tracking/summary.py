"""What a candidate run records about an :class:`EvalResult`: metric values and artefact files."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kernelopt.data import Definition, EvalResult, Solution, Workload
from kernelopt.tracking import names

_SAFE = re.compile(r"[^\w\-.]")


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (``q`` in [0, 100]) of a non-empty sequence."""
    if not values:
        raise ValueError("percentile of an empty sequence")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def result_metrics(result: EvalResult) -> dict[str, float]:
    """Run metrics of one evaluation.

    Aggregates over workloads (``mean/median/p95_latency_ms``, ``speedup_vs_reference``) are logged only
    when every workload passed, so they always compare like with like; per-workload latencies
    (``lat_ms.<uuid>``), reference latencies (``ref_ms.<uuid>``) and speedups (``speedup.<uuid>``) are
    logged for each passed workload; the harness's host seconds per workload (``wall_s.<uuid>``, its
    ``extra["wall_s"]``) for every workload.
    """
    m: dict[str, float] = {
        names.PASS_COUNT: float(result.pass_count),
        names.WORKLOAD_COUNT: float(len(result.results)),
        names.WALL_S: float(result.wall_s),
        "all_passed": 1.0 if result.all_passed else 0.0,
    }
    lats: list[float] = []
    speedups: list[float] = []
    for r in result.results:
        wall = r.extra.get("wall_s")  # every workload, passed or not: what the controller prices with
        if isinstance(wall, (int, float)) and _finite(wall):
            m[names.workload_metric(names.WORKLOAD_WALL_PREFIX, r.uuid)] = float(wall)
        if not r.passed or r.latency is None:
            continue
        if _finite(r.latency.mean_ms):
            m[names.workload_metric(names.LAT_PREFIX, r.uuid)] = r.latency.mean_ms
            lats.append(r.latency.mean_ms)
        if r.reference_latency is not None and _finite(r.reference_latency.mean_ms):
            m[names.workload_metric(names.REF_PREFIX, r.uuid)] = r.reference_latency.mean_ms
        if _finite(r.speedup):
            m[names.workload_metric(names.SPEEDUP_PREFIX, r.uuid)] = r.speedup  # type: ignore[assignment]
            speedups.append(r.speedup)  # type: ignore[arg-type]
    if result.all_passed and len(lats) == len(result.results):
        m[names.MEAN_MS] = sum(lats) / len(lats)
        m[names.MEDIAN_MS] = percentile(lats, 50)
        m[names.P95_MS] = percentile(lats, 95)
        if len(speedups) == len(result.results):
            m[names.SPEEDUP] = sum(speedups) / len(speedups)
    return m


def request_key(solution_hash: str, settings_key: str, stage: str, workload_uuids: Sequence[str]) -> str:
    """Identity of one evaluation request: same key, same verdict and figures (dedup)."""
    payload = json.dumps([solution_hash, settings_key, stage, sorted(workload_uuids)])
    return hashlib.sha1(payload.encode()).hexdigest()


def settings_hash(settings_key: str) -> str:
    """Short hash of a settings key (safe inside an MLflow filter string)."""
    return hashlib.sha1(settings_key.encode()).hexdigest()[:16]


def seed_info(solution: Solution) -> tuple[str | None, dict[str, Any]]:
    """``(seed name, seed params)`` from a generated solution's ``kernelopt`` block (``(None, {})`` if absent)."""
    extra = (solution.model_extra or {}).get("kernelopt")
    if not isinstance(extra, dict):
        return None, {}
    params = extra.get("params")
    return extra.get("seed"), dict(params) if isinstance(params, dict) else {}


@dataclass(frozen=True)
class _Named:
    """Stands in for a :class:`Definition` when only its name is known (``to_traces`` reads ``.name``)."""

    name: str


def write_artifacts(out: Path, solution: Solution, result: EvalResult, *,
                    definition: Definition | None = None, workloads: Sequence[Workload] | None = None,
                    decision_json: str | None = None, extra: dict[str, str | bytes] | None = None) -> None:
    """Lay out a candidate run's artefact tree under ``out``.

    ``solution/solution.json``, ``solution/src/<path>``, ``traces.jsonl`` (FlashInfer Trace lines),
    ``result.json``, ``logs/build.log`` and ``logs/<uuid>.log``, ``profile.json``, ``decision.json`` and
    any ``extra`` files (relative path -> content, e.g. prompt and response).
    """
    sol_dir = out / "solution"
    (sol_dir / "src").mkdir(parents=True)
    (sol_dir / "solution.json").write_text(solution.to_json(indent=2))
    for src in solution.sources:
        target = sol_dir / "src" / src.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(src.content)
    known = {w.uuid: w for w in (workloads or [])}
    wls = [known.get(r.uuid) or Workload(uuid=r.uuid, axes=r.axes) for r in result.results]
    stamp = datetime.now(UTC).isoformat()
    traces = result.to_traces(definition or _Named(result.definition), wls, stamp)  # type: ignore[arg-type]
    (out / "traces.jsonl").write_text("".join(t.to_json() + "\n" for t in traces))
    (out / "result.json").write_text(result.model_dump_json(indent=2))
    logs = out / "logs"
    if result.build_log:
        logs.mkdir(exist_ok=True)
        (logs / "build.log").write_text(result.build_log)
    for r in result.results:
        if r.log:
            logs.mkdir(exist_ok=True)
            (logs / (_SAFE.sub("_", r.uuid) + ".log")).write_text(r.log)
    if result.profile is not None:
        (out / "profile.json").write_text(json.dumps(result.profile, indent=2, default=str))
    if decision_json is not None:
        (out / "decision.json").write_text(decision_json)
    for rel, content in (extra or {}).items():
        target = out / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            raise ValueError(f"artifact path {rel!r} must be relative without '..'")
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
