"""``TrackingStore``: kernelopt's one door to MLflow (see ``docs/contracts.md``)."""

from __future__ import annotations

from kernelopt.tracking.campaigns import CampaignsMixin
from kernelopt.tracking.candidates import CandidatesMixin
from kernelopt.tracking.compare import CompareMixin
from kernelopt.tracking.report import ReportMixin


class TrackingStore(CampaignsMixin, CandidatesMixin, ReportMixin, CompareMixin):
    """Campaign runs, candidate runs, decisions, state queries, registry and reports over one MLflow store.

    Layout (one experiment ``kernelopt/<definition>`` per definition; artefacts of a sqlite store under
    ``<db dir>/artifacts/<definition>/``):

    - campaign run (tag ``kernelopt.kind=campaign``): config params + ``config.json``/``config.yaml``,
      ``decisions.jsonl``, report PNGs;
    - candidate runs nested under it (``mlflow.parentRunId``): one per evaluation at a stage;
    - registered model ``kernelopt.<definition>``; alias ``champion`` = the retained kernel.

    Args:
        tracking_uri: any MLflow tracking URI; ``None`` = ``sqlite:///<cwd>/mlruns/mlflow.db``.
        artifact_root: artefact root for new experiments; ``None`` = ``artifacts/`` next to a sqlite
            database (``<cwd>/mlruns/artifacts`` by default) or the server's choice for a remote store.
    """

    def __repr__(self) -> str:
        return f"TrackingStore({self.tracking_uri!r}, artifact_root={self.artifact_root!r})"
