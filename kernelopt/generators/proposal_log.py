"""What a generator's round produced besides solutions (:class:`ProposalLog`: per-solution artefacts and metrics,
the failed proposals) and how the campaign keeps it: failed proposals archived on the campaign run, their tokens
and cost as metrics. Every archived text passes :func:`kernelopt.generators.keys.scrub` first.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelopt.data.records import FAILED_COST_METRIC, FAILED_TOKEN_METRICS
from kernelopt.generators.keys import scrub


@dataclass
class ProposalFailure:
    """A request that produced no candidate: why, and what was sent/received (scrubbed)."""

    reason: str
    artifacts: dict[str, str] = field(default_factory=dict)
    usage: dict[str, Any] | None = None  # the reply's usage when one came (a truncated reply still costs tokens)


@dataclass
class ProposalLog:
    """What a generator produced besides solutions since the last ``take_log()``."""

    artifacts: dict[str, dict[str, str]] = field(default_factory=dict)
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    failures: list[ProposalFailure] = field(default_factory=list)


def archive_failures(store: Any, run_id: str, failures: list[ProposalFailure]) -> None:
    """Store failed proposals on the campaign run as ``proposals/failed-<time>-<i>/`` (reason.txt and
    the scrubbed prompt/response), when the store can upload folders."""
    upload = getattr(store, "upload_dir", None)
    if not failures or not callable(upload):
        return
    stamp = time.strftime("%Y%m%dT%H%M%S")
    with tempfile.TemporaryDirectory(prefix="kernelopt-failed-") as tmp:
        for i, f in enumerate(failures):
            base = Path(tmp) / "proposals" / f"failed-{stamp}-{time.monotonic_ns() % 10**6:06d}-{i}"
            for rel, content in {"reason.txt": f.reason, **f.artifacts}.items():
                (base / rel).parent.mkdir(parents=True, exist_ok=True)
                (base / rel).write_text(scrub(content), encoding="utf-8")
        upload(run_id, Path(tmp))


def failure_metrics(failures: list[ProposalFailure]) -> dict[str, float]:
    """Tokens and cost of the replies that gave no candidate (logged on the campaign run, one step per round, so
    that ``compare_campaigns`` counts them); ``{}`` when none came with usage."""
    used = [f.usage for f in failures if f.usage]
    if not used:
        return {}
    out = {FAILED_TOKEN_METRICS[0]: float(sum(u.get("input_tokens") or 0 for u in used)),
           FAILED_TOKEN_METRICS[1]: float(sum(u.get("output_tokens") or 0 for u in used))}
    costs = [u["cost_usd"] for u in used if u.get("cost_usd") is not None]
    if costs:
        out[FAILED_COST_METRIC] = float(sum(costs))
    return out


def take_log(generator: Any) -> ProposalLog:
    """Drain a generator's :class:`ProposalLog` (an empty one for generators without it)."""
    fn = getattr(generator, "take_log", None)
    return fn() if callable(fn) else ProposalLog()
