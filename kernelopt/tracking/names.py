"""Names kernelopt uses inside MLflow: experiments, registered models, tags, metrics, artefacts.

Keeping them in one place lets the UI, ``load_state`` and the report agree on spelling.
"""

from __future__ import annotations

import re

EXPERIMENT_PREFIX = "kernelopt/"
MODEL_PREFIX = "kernelopt."
CHAMPION_ALIAS = "champion"

# run tags
KIND = "kernelopt.kind"  # "campaign" | "candidate"
DEFINITION = "kernelopt.definition"
CAMPAIGN = "kernelopt.campaign"
SOLUTION_HASH = "kernelopt.solution_hash"
STAGE = "kernelopt.stage"
SETTINGS_KEY = "kernelopt.settings_key"
SETTINGS_HASH = "kernelopt.settings_hash"
STATUS = "kernelopt.status"  # ALL_PASSED | FAILED
FAILURE = "kernelopt.failure"  # "STATUS: last log line" of the first failing workload (FAILED runs only)
REQUEST_KEY = "kernelopt.request_key"
PARAMS_JSON = "kernelopt.params"
BASELINE = "kernelopt.baseline"
LOGGED_AT = "kernelopt.logged_at"
ADOPTED_FROM = "kernelopt.adopted_from"
MEASURED_ON = "kernelopt.measured_on"  # a candidate run's card (its result's environment hardware)
HARDWARE = "kernelopt.hardware"  # a campaign run's machine ("1x NVIDIA H200", "cpu:x86_64")
GATE_WORKLOADS = "kernelopt.gate_workloads"
ALL_WORKLOADS = "kernelopt.all_workloads"
PARENT_RUN = "mlflow.parentRunId"
RUN_NAME = "mlflow.runName"

ALL_PASSED = "ALL_PASSED"
FAILED = "FAILED"
STAGES = ("gate", "sweep", "repeat")

# candidate metrics
MEAN_MS = "mean_latency_ms"
MEDIAN_MS = "median_latency_ms"
P95_MS = "p95_latency_ms"
SPEEDUP = "speedup_vs_reference"
PASS_COUNT = "pass_count"
WORKLOAD_COUNT = "workload_count"
WALL_S = "wall_s"
LAT_PREFIX = "lat_ms."  # + full workload uuid
REF_PREFIX = "ref_ms."  # + full workload uuid
SPEEDUP_PREFIX = "speedup."  # + full workload uuid
WORKLOAD_WALL_PREFIX = "wall_s."  # + full workload uuid: host seconds the harness spent on it
DECISIONS_METRIC = "decisions"

# artefacts
SOLUTION_DIR = "solution"
SOLUTION_JSON = "solution/solution.json"
DECISIONS_FILE = "decisions.jsonl"
REPORT_DIR = "report"

_KEY_RE = re.compile(r"^[\w\-. /]{1,250}$")


def experiment_name(definition: str) -> str:
    """MLflow experiment holding every campaign of one definition (``kernelopt/<definition>``)."""
    if not definition or "'" in definition:
        raise ValueError(f"definition name {definition!r} is not usable as an experiment name")
    return EXPERIMENT_PREFIX + definition


def model_name(definition: str) -> str:
    """Registered model holding the promoted kernels of one definition (``kernelopt.<definition>``)."""
    if not definition or not _KEY_RE.match(definition):
        raise ValueError(f"definition name {definition!r} is not usable as a registered model name")
    return MODEL_PREFIX + definition


def valid_key(key: str) -> bool:
    """True when ``key`` is a legal MLflow param/metric/tag key."""
    return bool(_KEY_RE.match(key)) and ".." not in key and not key.startswith("/")


def workload_metric(prefix: str, uuid: str) -> str:
    """Per-workload metric name, e.g. ``lat_ms.<uuid>``; a clear error when the uuid cannot be a key."""
    key = prefix + uuid
    if not valid_key(key):
        raise ValueError(f"workload uuid {uuid!r} cannot be part of an MLflow metric name")
    return key


def per_workload(metrics: dict[str, float], prefix: str = LAT_PREFIX) -> dict[str, float]:
    """``{workload uuid: value}`` from per-workload metrics such as ``lat_ms.<uuid>``."""
    return {k[len(prefix):]: v for k, v in metrics.items() if k.startswith(prefix)}


def quote(value: str) -> str:
    """Quote a value for an MLflow filter string."""
    if "'" in value:
        raise ValueError(f"value {value!r} contains a single quote; cannot be used in an MLflow filter")
    return f"'{value}'"
