"""Side-by-side comparison of campaigns (e.g. the Full-Agent vs Agent-Assisted ablation)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from kernelopt.data.records import COST_METRIC, FAILED_COST_METRIC, FAILED_TOKEN_METRICS, TOKEN_METRICS
from kernelopt.tracking import names
from kernelopt.tracking.state import StateMixin, record_from_run


class CompareMixin(StateMixin):
    """Best latency, pass rate, candidates to target, tokens and cost per campaign."""

    def _metric_sum(self, run_id: str, key: str) -> float | None:
        """Sum of a metric's values over its steps (the last value of each step), ``None`` when never logged."""
        history = self.client.get_metric_history(run_id, key)
        if not history:
            return None
        by_step = {m.step: m.value for m in sorted(history, key=lambda m: m.timestamp)}
        return float(sum(by_step.values()))

    def compare_campaigns(self, run_ids: Sequence[str], target_tolerance: float = 0.05) -> list[dict[str, Any]]:
        """One row per campaign.

        ``candidates_to_target`` counts distinct candidates (in logging order) until the campaign's
        best-so-far all-passed latency is within ``target_tolerance`` of the best latency of *all*
        compared campaigns (``None`` if never). Latencies of different stages are comparable only
        on the same workload set, so each campaign's figure uses its full-sweep/repeat runs when it
        has any, else its gate runs. ``tokens`` and ``cost_usd`` include the replies that gave no candidate
        (``llm_failed_*`` on the campaign run: a reply cut at max_tokens still cost them).
        """
        rows: list[dict[str, Any]] = []
        for rid in run_ids:
            camp = self.campaign_run(rid)
            runs = self.candidate_runs(rid)
            recs = [record_from_run(r) for r in runs]
            full = [r for r in recs if r.stage != "gate"]
            pool = full or recs
            passed = [r for r in pool if r.all_passed and r.mean_latency_ms is not None]
            # the tokens a campaign spent: an adopted run carries the earlier campaign's (its donor's) figures
            metrics = [r.data.metrics for r in runs if not r.data.tags.get(names.ADOPTED_FROM)]
            tokens = sum(m.get(k, 0.0) for m in metrics for k in TOKEN_METRICS)
            costs = [m[COST_METRIC] for m in metrics if COST_METRIC in m]
            tokens += sum(self._metric_sum(rid, k) or 0.0 for k in FAILED_TOKEN_METRICS)
            failed_cost = self._metric_sum(rid, FAILED_COST_METRIC)
            if failed_cost is not None:
                costs.append(failed_cost)
            rows.append({
                "campaign": rid, "agent_mode": camp.data.tags.get("kernelopt.agent_mode"),
                "generator": camp.data.tags.get("kernelopt.generator"),
                "candidates": len({r.solution_hash for r in recs}), "runs": len(recs),
                "pass_rate": (sum(r.all_passed for r in recs) / len(recs)) if recs else None,
                "best_latency_ms": min((r.mean_latency_ms for r in passed), default=None),
                "stage_basis": "full" if full else "gate",
                "tokens": int(tokens), "cost_usd": sum(costs) if costs else None,
                "_order": [(r.solution_hash, r.mean_latency_ms if r.all_passed else None) for r in pool],
            })
        best = min((r["best_latency_ms"] for r in rows if r["best_latency_ms"] is not None), default=None)
        for row in rows:
            order = row.pop("_order")
            row["candidates_to_target"] = None
            if best is None:
                continue
            seen: list[str] = []
            so_far = math.inf
            for h, ms in order:
                if h not in seen:
                    seen.append(h)
                if ms is not None:
                    so_far = min(so_far, ms)
                if so_far <= best * (1 + target_tolerance):
                    row["candidates_to_target"] = len(seen)
                    break
        return rows
