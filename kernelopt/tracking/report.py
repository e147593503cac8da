"""Reports from the tracking store: leaderboards and PNG plots logged to the campaign run."""

from __future__ import annotations

import json
import math
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mlflow.entities import Run

from kernelopt.tracking import names, plots
from kernelopt.tracking.state import StateMixin, record_from_run

_RUN_ID = re.compile(r"[0-9a-f]{32}")
_ROW_PARAMS = ("generator", "model", "direction", "band", "baseline", "parent_run_id")


def leaderboard_row(run: Run) -> dict[str, Any]:
    """One leaderboard row (plain JSON-ready dict) for a candidate run."""
    rec = record_from_run(run)
    m = run.data.metrics
    row: dict[str, Any] = {
        "run_id": rec.run_id, "name": rec.name, "stage": rec.stage, "solution_hash": rec.solution_hash,
        "campaign": run.data.tags.get(names.CAMPAIGN), "status": rec.status, "all_passed": rec.all_passed,
        "pass_count": rec.pass_count, "workload_count": rec.workload_count,
        "mean_latency_ms": rec.mean_latency_ms, "median_latency_ms": m.get(names.MEDIAN_MS),
        "p95_latency_ms": rec.p95_latency_ms, "speedup_vs_reference": m.get(names.SPEEDUP),
        "start_time": rec.start_time, "failure": rec.failure,
    }
    row.update({k: rec.params.get(k) for k in _ROW_PARAMS})
    if row["generator"] == "include":  # a campaign.include solution, gated in the baseline round: not a seed's default
        row["direction"] = "include"
    return row


def _sort_key(row: dict[str, Any]) -> tuple:
    """All-passed rows first; among them, the ones over more workloads first (a gate's mean over 2-3 of a
    band's workloads is not comparable with a full sweep's: on the H200 GDN decode campaign of 2026-11-30,
    batch-1-16 gate means of 0.0044 ms ranked above the 0.0085 ms champion), then by mean latency."""
    mean = row["mean_latency_ms"]
    return (not row["all_passed"], -(row["workload_count"] or 0) if row["all_passed"] else 0,
            mean if mean is not None else math.inf, -row["pass_count"], row["start_time"])


class ReportMixin(StateMixin):
    """Leaderboards and report plots."""

    def leaderboard(self, target: str, *, by_solution: bool = False) -> list[dict[str, Any]]:
        """Candidates of a campaign (``target`` = campaign run id) or of every campaign of a definition
        (``target`` = definition name): all-passed ones first, those over more workloads (sweeps) before
        those over fewer (gates), each by mean latency; then the rest by pass count. Over a definition, a
        run adopted from an earlier campaign (``campaign.reuse_across_campaigns``) is one measurement with
        its source: only the source is listed.

        Args:
            by_solution: keep only the best row per solution hash.
        """
        if _RUN_ID.fullmatch(target) and self.campaign_exists(target):
            runs = self.candidate_runs(target)
        else:
            exp = self.experiment_id(target, create=False)
            if exp is None:
                raise ValueError(f"leaderboard: {target!r} is neither a campaign run id nor a definition "
                                 f"with an experiment in {self.tracking_uri}")
            runs = self.search([exp], f"tags.`{names.KIND}` = 'candidate' and attributes.status = 'FINISHED'")
            listed = {r.info.run_id for r in runs}
            runs = [r for r in runs if r.data.tags.get(names.ADOPTED_FROM) not in listed]
        rows = sorted((leaderboard_row(r) for r in runs), key=_sort_key)
        if by_solution:
            seen: set[str] = set()
            rows = [r for r in rows if not (r["solution_hash"] in seen or seen.add(r["solution_hash"]))]
        for i, row in enumerate(rows, start=1):
            row["rank"] = i
        return rows

    def progress(self, campaign_run_id: str) -> list[float | None]:
        """Mean latency of each generated candidate in logging order (``None`` where not all workloads
        passed); baseline runs are left out."""
        return [c.mean_latency_ms if c.all_passed else None for c in self.load_candidates(campaign_run_id)
                if not c.params.get("baseline")]

    def champion_speedups(self, definition: str) -> tuple[list[str], dict[str, list[float | None]]]:
        """Per-workload speedups of the champion: vs the reference (harness figures) and vs the latest
        run of each baseline (runs tagged ``kernelopt.baseline=<name>``). Empty when no champion."""
        champ = self.get_champion(definition)
        if champ is None:
            return [], {}
        metrics = self.client.get_run(champ.run_id).data.metrics
        uuids = sorted(champ.per_workload_ms)
        series: dict[str, list[float | None]] = {}
        ref = names.per_workload(metrics, names.SPEEDUP_PREFIX)
        if ref:
            series["vs reference"] = [ref.get(u) for u in uuids]
        exp = self.experiment_id(definition, create=False)
        baselines = self.search([exp], f"tags.`{names.KIND}` = 'candidate' and attributes.status = 'FINISHED' "
                                       f"and tags.`{names.BASELINE}` != ''", order_by=["attributes.start_time DESC"]) \
            if exp else []
        latest: dict[str, Run] = {}
        for run in baselines:
            latest.setdefault(run.data.tags[names.BASELINE], run)
        for name, run in sorted(latest.items()):
            base = names.per_workload(run.data.metrics)
            series[f"vs {name}"] = [base[u] / champ.per_workload_ms[u] if u in base and champ.per_workload_ms[u] > 0
                                    else None for u in uuids]
        return uuids, series

    def write_report(self, campaign_run_id: str, out_dir: str | Path | None = None,
                     compare: Sequence[str] = (), labels: Sequence[str] | None = None) -> dict[str, Path]:
        """Write ``leaderboard.json``, ``progress.png``, ``speedups.png`` (with a champion) and
        ``campaigns.png`` (this campaign vs ``compare``) and log them under ``report/`` of the campaign run.

        Args:
            out_dir: where to keep the files (default: a temporary directory, removed afterwards).
            compare: other campaign run ids for the best-so-far comparison.
            labels: legend labels for ``[campaign_run_id, *compare]`` (default: agent mode tag or run id).

        Returns:
            ``{name: path}``: local files when ``out_dir`` is given, else artefact paths (``report/...``).
        """
        camp = self.campaign_run(campaign_run_id)
        definition = camp.data.tags[names.DEFINITION]
        if labels is not None and len(labels) != 1 + len(compare):
            raise ValueError(f"write_report: {len(labels)} labels for {1 + len(compare)} campaigns")
        tmp = None if out_dir else tempfile.TemporaryDirectory(prefix="kernelopt-report-")
        out = Path(out_dir or tmp.name)  # type: ignore[union-attr]
        out.mkdir(parents=True, exist_ok=True)
        try:
            files: dict[str, Path] = {}
            board = self.leaderboard(campaign_run_id)
            files["leaderboard"] = out / "leaderboard.json"
            files["leaderboard"].write_text(json.dumps(board, indent=2, default=str))
            files["progress"] = plots.plot_progress(self.progress(campaign_run_id), out / "progress.png",
                                                    f"{definition}: campaign {campaign_run_id[:8]}")
            uuids, series = self.champion_speedups(definition)
            if uuids and series:
                files["speedups"] = plots.plot_speedups(uuids, series, out / "speedups.png",
                                                        f"{definition}: champion per-workload speedup")
            if compare:
                ids = [campaign_run_id, *compare]
                files["campaigns"] = plots.plot_campaigns(self._curves(ids, labels), out / "campaigns.png",
                                                          f"{definition}: best so far")
            for path in files.values():
                self.upload_file(campaign_run_id, path, names.REPORT_DIR)
            return files if tmp is None else {k: Path(names.REPORT_DIR) / v.name for k, v in files.items()}
        finally:
            if tmp is not None:
                tmp.cleanup()

    def _curves(self, run_ids: Sequence[str], labels: Sequence[str] | None) -> dict[str, list[float | None]]:
        curves: dict[str, list[float | None]] = {}
        for i, rid in enumerate(run_ids):
            tags = self.campaign_run(rid).data.tags
            label = labels[i] if labels else f"{tags.get('kernelopt.agent_mode', 'campaign')} ({rid[:8]})"
            curves[label] = self.progress(rid)
        return curves
