"""Model registry: one registered model per definition, versions pointing at candidate solutions,
the ``champion`` alias, and solution download / export."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mlflow.entities.model_registry import ModelVersion
from mlflow.exceptions import MlflowException

from kernelopt.data import ChampionInfo, Solution, parse_model
from kernelopt.data.loader import names_folder
from kernelopt.tracking import names
from kernelopt.tracking.base import StoreBase, not_found, stringify

_EVIDENCE_METRICS = (names.MEAN_MS, names.P95_MS, names.PASS_COUNT, names.WORKLOAD_COUNT)


def _float(tags: dict[str, str], key: str) -> float | None:
    value = tags.get(key)
    if value in (None, "", "None", "null"):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except ValueError:
        raise ValueError(f"model version tag {key}={value!r} is not a number") from None


class RegistryMixin(StoreBase):
    """Register promoted candidates, move the ``champion`` alias, fetch solutions back."""

    def register(self, definition: str, run_id: str, tags: dict[str, Any]) -> str:
        """Create a version of ``kernelopt.<definition>`` whose source is ``runs:/<run_id>/solution``.

        Version tags carry the gate evidence: the run's mean/p95 latency, pass and workload counts,
        solution hash, stage and ``promoted_at``, overridden/extended by ``tags`` (e.g. ``noise_floor``,
        a mean latency over repeats).

        Returns:
            The new version number (as a string).
        """
        run = self.client.get_run(run_id)
        rtags = run.data.tags
        if rtags.get(names.KIND) != "candidate" or run.info.status != "FINISHED":
            raise ValueError(f"register: run {run_id!r} is not a FINISHED kernelopt candidate run")
        if rtags.get(names.DEFINITION) != definition:
            raise ValueError(f"register: run {run_id!r} belongs to {rtags.get(names.DEFINITION)!r}, "
                             f"not {definition!r}")
        name = names.model_name(definition)
        try:
            self.client.get_registered_model(name)
        except MlflowException as exc:
            if not not_found(exc):
                raise
            try:
                self.client.create_registered_model(
                    name, tags={names.DEFINITION: definition},
                    description=f"Promoted kernels of {definition} (alias '{names.CHAMPION_ALIAS}' = retained)")
            except MlflowException:
                self.client.get_registered_model(name)  # created meanwhile
        evidence: dict[str, str] = {k: stringify(run.data.metrics[k]) for k in _EVIDENCE_METRICS
                                    if k in run.data.metrics}
        evidence.update({
            "solution_hash": rtags.get(names.SOLUTION_HASH, ""),
            "stage": rtags.get(names.STAGE, ""),
            "campaign": rtags.get(names.CAMPAIGN, ""),
            "promoted_at": datetime.now(UTC).isoformat(),
        })
        evidence.update({str(k): stringify(v) for k, v in (tags or {}).items()})
        mv = self.client.create_model_version(name, source=f"runs:/{run_id}/{names.SOLUTION_DIR}",
                                              run_id=run_id, tags=evidence,
                                              await_creation_for=0)  # READY at once; the wait only logged a line
        return str(mv.version)

    def set_champion(self, definition: str, version: str) -> None:
        """Point the ``champion`` alias of ``kernelopt.<definition>`` at ``version``."""
        # Two campaigns creating the alias at the same moment make MLflow insert it twice; on a
        # PostgreSQL store the second insert fails (unique key). A retry finds the row and updates it.
        for attempt in range(3):
            try:
                self.client.set_registered_model_alias(names.model_name(definition), names.CHAMPION_ALIAS,
                                                       str(version))
                return
            except MlflowException:
                if attempt == 2:
                    raise
                time.sleep(0.2 * (attempt + 1))

    def version_by_alias(self, definition: str, alias: str = names.CHAMPION_ALIAS) -> ModelVersion | None:
        """The model version an alias points at, or ``None`` (no model / no such alias)."""
        try:
            return self.client.get_model_version_by_alias(names.model_name(definition), alias)
        except MlflowException as exc:
            if not_found(exc):
                return None
            raise

    def get_champion(self, definition: str) -> ChampionInfo | None:
        """The retained kernel of a definition with its evidence, or ``None`` before any promotion.

        Mean/p95 latency and the noise floor come from the version tags (falling back on the run's
        metrics); per-workload latencies from the run's ``lat_ms.<uuid>`` metrics.
        """
        mv = self.version_by_alias(definition)
        if mv is None:
            return None
        run = self.client.get_run(mv.run_id)
        metrics = run.data.metrics
        tags = dict(mv.tags or {})
        mean = _float(tags, names.MEAN_MS)
        mean = metrics.get(names.MEAN_MS) if mean is None else mean
        if mean is None:
            raise ValueError(f"champion {names.model_name(definition)} v{mv.version}: no {names.MEAN_MS} "
                             "in version tags or run metrics")
        p95 = _float(tags, names.P95_MS)
        return ChampionInfo(
            run_id=mv.run_id, version=str(mv.version), mean_latency_ms=mean,
            p95_latency_ms=metrics.get(names.P95_MS) if p95 is None else p95,
            per_workload_ms=names.per_workload(metrics), noise_floor=_float(tags, "noise_floor"),
            provisional=tags.get("provisional"), solution_hash=run.data.tags.get(names.SOLUTION_HASH) or None,
        )

    def download_solution(self, run_id: str) -> Solution:
        """The :class:`Solution` logged by a candidate run (``solution/solution.json``)."""
        data = self.read_artifact_json(run_id, names.SOLUTION_JSON)
        if data is None:
            raise ValueError(f"run {run_id!r} has no artefact {names.SOLUTION_JSON}")
        return parse_model(Solution, data, f"run {run_id}/{names.SOLUTION_JSON}")

    def export(self, definition: str, alias: str = names.CHAMPION_ALIAS, path: str | Path | None = None) -> Path:
        """Write the solution an alias points at as FlashInfer Solution JSON (for flashinfer-bench).

        ``path`` may be a file or a directory, existing or written with a trailing ``/`` (``<dir>/<solution
        name>.json``); default ``./<solution name>.json``. kernelopt's own ``kernelopt`` block is left out.
        """
        mv = self.version_by_alias(definition, alias)
        if mv is None:
            raise ValueError(f"{names.model_name(definition)} has no version with alias {alias!r} in "
                             f"{self.tracking_uri} (a campaign's promotion sets 'champion')")
        solution = self.download_solution(mv.run_id)
        data = solution.to_dict()
        data.pop("kernelopt", None)
        target = Path(path) if path is not None else Path.cwd()
        if path is None or names_folder(path):
            target = target / f"{solution.name}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(data, indent=2) + "\n")
        return target
