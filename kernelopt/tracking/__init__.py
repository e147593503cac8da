"""kernelopt's only door to MLflow: campaign and candidate runs, state queries, registry, reports.

The report helpers (:mod:`kernelopt.tracking.report`) import matplotlib lazily; nothing here imports
MLflow's server modules, so ``mlflow-skinny`` suffices to log to a remote server.
"""

from kernelopt.tracking.names import CHAMPION_ALIAS, experiment_name, model_name
from kernelopt.tracking.store import TrackingStore
from kernelopt.tracking.uris import default_artifact_root, default_tracking_uri

__all__ = [
    "CHAMPION_ALIAS", "TrackingStore", "default_artifact_root", "default_tracking_uri", "experiment_name",
    "model_name",
]
