"""The campaign's decision log: ``decisions.jsonl`` on the campaign run, plus a ``decisions`` metric."""

from __future__ import annotations

import tempfile
from pathlib import Path

from kernelopt.data import Decision
from kernelopt.data.loader import parse_jsonl
from kernelopt.tracking import names
from kernelopt.tracking.base import StoreBase


class DecisionsMixin(StoreBase):
    """Append controller decisions to the campaign run and read them back."""

    def log_decision(self, campaign_run_id: str, decision: Decision) -> int:
        """Append ``decision`` to the campaign's ``decisions.jsonl`` artefact; returns the new count.

        The whole file is rewritten each time from a local cache; the first append in a process reads
        the existing artefact back first, so the log survives restarts. The metric ``decisions`` (step =
        index of the decision) counts them. One writer per campaign at a time.
        """
        if not isinstance(decision, Decision):
            raise TypeError(f"log_decision: expected a Decision, got {type(decision).__name__}")
        self.campaign_run(campaign_run_id)
        cache = self._decision_lines
        if campaign_run_id not in cache:
            text = self.read_artifact_text(campaign_run_id, names.DECISIONS_FILE) or ""
            cache[campaign_run_id] = [ln for ln in text.splitlines() if ln.strip()]
        lines = cache[campaign_run_id] + [decision.model_dump_json()]
        with tempfile.TemporaryDirectory(prefix="kernelopt-dec-") as tmp:
            path = Path(tmp) / names.DECISIONS_FILE
            path.write_text("".join(ln + "\n" for ln in lines))
            self.upload_file(campaign_run_id, path)
        cache[campaign_run_id] = lines
        self.log_batch(campaign_run_id, metrics={names.DECISIONS_METRIC: float(len(lines))}, step=len(lines) - 1)
        return len(lines)

    def load_decisions(self, campaign_run_id: str) -> list[Decision]:
        """Decisions recorded for a campaign, oldest first (read from the artefact)."""
        text = self.read_artifact_text(campaign_run_id, names.DECISIONS_FILE)
        if text is None:
            return []
        return parse_jsonl(Decision, text, f"run {campaign_run_id}/{names.DECISIONS_FILE}")
