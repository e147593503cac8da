"""The MLflow client wrapper shared by every part of :class:`~kernelopt.tracking.TrackingStore`.

Only the public client API is used (``mlflow.MlflowClient``), so the same code talks to a sqlite file,
a PostgreSQL database or a remote ``mlflow server``; nothing here imports MLflow's server modules.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mlflow import MlflowClient
from mlflow.entities import Metric, Param, Run, RunTag, ViewType
from mlflow.exceptions import MlflowException

from kernelopt.tracking import names
from kernelopt.tracking.uris import resolve_artifact_root, resolve_tracking_uri, sqlite_path

# MLflow draws a tqdm bar on stderr for every artefact download (a campaign reads a few per decision): dozens of
# bars between the controller's lines. Off unless the user asked for them (set the variable to "true").
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
# Against a server, MLflow prints "View run ... / View experiment ..." for every run it ends (two lines per candidate
# between the controller's): off the same way ("false" brings them back)
os.environ.setdefault("MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT", "true")

MAX_PARAM_VALUE = 6000
MAX_TAG_VALUE = 8000
BATCH_TAGS_PARAMS = 100
BATCH_METRICS = 1000
CHUNK_MARK = "@chunks:"


def not_found(exc: MlflowException) -> bool:
    """True when an MLflow error means "no such run / model / alias" (a missing alias is reported
    as ``INVALID_PARAMETER_VALUE ... not found``)."""
    if exc.error_code in ("RESOURCE_DOES_NOT_EXIST", "NOT_FOUND"):
        return True
    return exc.error_code == "INVALID_PARAMETER_VALUE" and "not found" in str(exc).lower()


def encode_long_tag(key: str, value: str) -> dict[str, str]:
    """Tags holding ``value`` under ``key``; values over MLflow's 8000-character limit are chunked."""
    if len(value) <= MAX_TAG_VALUE and not value.startswith(CHUNK_MARK):
        return {key: value}
    size = MAX_TAG_VALUE
    chunks = [value[i:i + size] for i in range(0, len(value), size)]
    out = {key: f"{CHUNK_MARK}{len(chunks)}"}
    out.update({f"{key}.{i}": c for i, c in enumerate(chunks)})
    return out


def decode_long_tag(tags: dict[str, str], key: str) -> str | None:
    """Inverse of :func:`encode_long_tag` (``None`` when the tag is absent)."""
    head = tags.get(key)
    if head is None or not head.startswith(CHUNK_MARK):
        return head
    n = int(head[len(CHUNK_MARK):])
    parts = [tags.get(f"{key}.{i}") for i in range(n)]
    if any(p is None for p in parts):
        raise ValueError(f"tag {key!r}: chunked value is missing parts ({n} expected)")
    return "".join(parts)  # type: ignore[arg-type]


def _open_client(tracking_uri: str) -> MlflowClient:
    """An MlflowClient; for a sqlite store it is created (schema creation / migration included) under
    an exclusive file lock: MLflow's first-use migration is not safe when several processes (a joblib
    multirun, parallel campaigns) open a new database at once."""
    db = sqlite_path(tracking_uri)
    if db is None:
        if tracking_uri.startswith(("http://", "https://")):
            check_server(tracking_uri)
        try:
            return MlflowClient(tracking_uri=tracking_uri, registry_uri=tracking_uri)
        except MlflowException as exc:  # e.g. a misspelt scheme: MLflow's exception, its first line
            raise ValueError(f"tracking uri {tracking_uri}: {exc.message.strip().splitlines()[0]}") from None
    import fcntl

    with open(db.with_name(db.name + ".init.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not db.exists():  # made aside and moved in by one rename: an interrupted first use leaves no half
                _create_sqlite(db)  # -migrated database (Ctrl-C there left '_alembic_tmp_*' tables: unusable)
            try:
                client = _migrated_client(tracking_uri)
            except Exception as exc:  # sqlalchemy's OperationalError, wrapped or not
                if "_alembic_tmp_" not in str(exc):
                    raise
                raise ValueError(half_migrated(db)) from None
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return client


def check_server(tracking_uri: str, timeout_s: float = 5.0) -> None:
    """An MLflow server answers at ``tracking_uri`` (any HTTP answer to ``/health``); else ``ValueError`` in one line.
    MLflow's own client retried a refused connection for about four minutes before its traceback."""
    import urllib.error
    import urllib.request

    try:
        urllib.request.urlopen(f"{tracking_uri.rstrip('/')}/health", timeout=timeout_s).close()
    except urllib.error.HTTPError:
        return  # a server answered (an auth proxy may refuse /health): MLflow's client says the rest
    except (urllib.error.URLError, OSError) as exc:
        why = getattr(exc, "reason", exc)
        raise ValueError(f"no MLflow server answers at {tracking_uri} ({why}); start one with "
                         "`scripts/mlflow_server.sh start <state folder>`, or point at another store") from None


def _migrated_client(tracking_uri: str) -> MlflowClient:
    client = MlflowClient(tracking_uri=tracking_uri, registry_uri=tracking_uri)
    client.search_experiments(max_results=1)  # forces schema creation / migration
    client.search_registered_models(max_results=1)  # the registry store migrates separately
    return client


def _create_sqlite(db: Path) -> None:
    """A new sqlite store: its tables made in a uniquely named file beside ``db``, then renamed to ``db`` (the
    caller holds the init lock; what an interrupted creation left beside it is removed first)."""
    import uuid

    for stale in db.parent.glob(f"{db.name}.creating-*"):
        stale.unlink(missing_ok=True)
    tmp = db.with_name(f"{db.name}.creating-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        _migrated_client(f"sqlite:///{tmp}")
        os.replace(tmp, db)
    finally:
        tmp.unlink(missing_ok=True)


def half_migrated(db: Path) -> str:
    """What to do about a store whose table creation or migration was interrupted (MLflow cannot open it again)."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            runs = con.execute("select count(*) from runs").fetchone()[0]
    except sqlite3.Error:
        runs = 0
    if not runs:
        return (f"tracking store {db}: its first use was interrupted while MLflow made its tables, and it holds no "
                f"run: delete it (rm {db}) and run again")
    return (f"tracking store {db}: an MLflow migration of it was interrupted (tables '_alembic_tmp_*' left "
            f"behind); it holds {runs} run(s): restore it from a copy made before the upgrade")


class StoreBase:
    """Client, experiment cache and batching helpers.

    Args:
        tracking_uri: MLflow tracking URI; ``None`` means ``sqlite:///<cwd>/mlruns/mlflow.db``.
        artifact_root: where new experiments keep artefacts; ``None`` means ``artifacts/`` next to a
            sqlite database, or the server's default for a remote store.
    """

    def __init__(self, tracking_uri: str | None = None, artifact_root: str | None = None, *,
                 existing: bool = False) -> None:
        """``existing``: the store must be there already (commands that only read it: a mistyped sqlite path
        is an error, not a new empty database)."""
        self.tracking_uri = resolve_tracking_uri(tracking_uri, make_folder=not existing)
        db = sqlite_path(self.tracking_uri)
        if existing and db is not None and not db.is_file():
            raise ValueError(f"no tracking store at {db} (campaigns create one; --tracking-uri names another)")
        self.artifact_root = resolve_artifact_root(self.tracking_uri, artifact_root)
        self.client = _open_client(self.tracking_uri)
        self._experiments: dict[str, str] = {}
        self._run_experiment: dict[str, str] = {}
        self._decision_lines: dict[str, list[str]] = {}  # campaign run id -> decisions.jsonl lines

    # --- experiments -------------------------------------------------------------------------
    def experiment_id(self, definition: str, create: bool = True) -> str | None:
        """Id of the experiment of ``definition`` (created with its artefact location if absent)."""
        if definition in self._experiments:
            return self._experiments[definition]
        name = names.experiment_name(definition)
        exp = self.client.get_experiment_by_name(name)
        if exp is None:
            if not create:
                return None
            location = f"{self.artifact_root}/{definition}" if self.artifact_root else None
            try:
                exp_id = self.client.create_experiment(name, artifact_location=location, tags={
                    names.DEFINITION: definition,
                    "mlflow.experimentKind": "custom_model_development",  # UI opens on the runs table
                })
            except MlflowException:
                exp = self.client.get_experiment_by_name(name)  # created meanwhile by another process
                if exp is None:
                    raise
                exp_id = exp.experiment_id
        else:
            if exp.lifecycle_stage == "deleted":
                self.client.restore_experiment(exp.experiment_id)
            exp_id = exp.experiment_id
        self._experiments[definition] = exp_id
        return exp_id

    def experiment_of(self, run_id: str) -> str:
        """Experiment id of a run."""
        if run_id not in self._run_experiment:
            self._run_experiment[run_id] = self.client.get_run(run_id).info.experiment_id
        return self._run_experiment[run_id]

    def campaign_exists(self, run_id: str) -> bool:
        """True when ``run_id`` is an (undeleted) campaign run of this store."""
        try:
            run = self.client.get_run(run_id)
        except MlflowException as exc:
            if not_found(exc):
                return False
            raise
        return run.data.tags.get(names.KIND) == "campaign" and run.info.lifecycle_stage == "active"

    def _get_run(self, run_id: str, what: str, hint: str = "") -> Run:
        """The run; ``ValueError("<what> '<id>' not found in <store><hint>")`` when the store has none."""
        try:
            return self.client.get_run(run_id)
        except MlflowException as exc:
            if not_found(exc):
                raise ValueError(f"{what} {run_id!r} not found in {self.tracking_uri}{hint}") from None
            raise

    def campaign_run(self, run_id: str) -> Run:
        """The campaign run; a clear error when ``run_id`` is not one."""
        run = self._get_run(run_id, "campaign run")
        if run.data.tags.get(names.KIND) != "campaign":
            raise ValueError(f"run {run_id!r} is not a kernelopt campaign run (tag {names.KIND} missing)")
        self._run_experiment[run_id] = run.info.experiment_id
        return run

    def candidate_campaign(self, run_id: str) -> str:
        """The campaign run id of candidate run ``run_id``; a clear error when ``run_id`` is not a candidate
        run of this store."""
        run = self._get_run(run_id, "run", " (--tracking-uri names another store)")
        campaign = run.data.tags.get(names.CAMPAIGN)
        if run.data.tags.get(names.KIND) != "candidate" or not campaign:
            raise ValueError(f"run {run_id!r} is not a kernelopt candidate run")
        return campaign

    # --- search ------------------------------------------------------------------------------
    def search(self, experiment_ids: list[str], filter_string: str, order_by: list[str] | None = None,
               max_results: int | None = None) -> list[Run]:
        """All active runs matching ``filter_string`` (follows page tokens)."""
        out: list[Run] = []
        token = None
        while True:
            page = self.client.search_runs(experiment_ids, filter_string=filter_string,
                                           run_view_type=ViewType.ACTIVE_ONLY, max_results=1000,
                                           order_by=order_by, page_token=token)
            out.extend(page)
            token = page.token
            if not token or (max_results is not None and len(out) >= max_results):
                return out[:max_results] if max_results is not None else out

    # --- logging -----------------------------------------------------------------------------
    def log_batch(self, run_id: str, params: dict[str, str] | None = None,
                  metrics: dict[str, float] | None = None, tags: dict[str, str] | None = None,
                  step: int = 0) -> None:
        """Log params, metrics and tags within MLflow's per-request limits."""
        now = int(time.time() * 1000)
        p = [Param(k, v) for k, v in (params or {}).items()]
        t = [RunTag(k, v) for k, v in (tags or {}).items()]
        m = [Metric(k, float(v), now, step) for k, v in (metrics or {}).items()]
        for i in range(0, len(p), BATCH_TAGS_PARAMS):
            self.client.log_batch(run_id, params=p[i:i + BATCH_TAGS_PARAMS])
        for i in range(0, len(t), BATCH_TAGS_PARAMS):
            self.client.log_batch(run_id, tags=t[i:i + BATCH_TAGS_PARAMS])
        for i in range(0, len(m), BATCH_METRICS):
            self.client.log_batch(run_id, metrics=m[i:i + BATCH_METRICS])

    def upload_dir(self, run_id: str, local_dir: Path) -> None:
        """Upload the contents of ``local_dir`` to the run's artefact root."""
        self.client.log_artifacts(run_id, str(local_dir))

    def upload_file(self, run_id: str, local_file: Path, artifact_path: str | None = None) -> None:
        """Upload one file (replacing an artefact of the same name)."""
        self.client.log_artifact(run_id, str(local_file), artifact_path)

    def has_artifact(self, run_id: str, path: str) -> bool:
        """True when the run holds an artefact file at ``path``."""
        parent = str(Path(path).parent) if "/" in path else None
        try:
            infos = self.client.list_artifacts(run_id, parent)
        except (MlflowException, OSError):
            return False
        return any(i.path == path and not i.is_dir for i in infos)

    def read_artifact_text(self, run_id: str, path: str) -> str | None:
        """Text of one artefact, or ``None`` when the run has no such artefact."""
        if not self.has_artifact(run_id, path):
            return None
        with tempfile.TemporaryDirectory(prefix="kernelopt-dl-") as tmp:
            local = self.client.download_artifacts(run_id, path, tmp)
            return Path(local).read_text()

    def read_artifact_json(self, run_id: str, path: str) -> Any:
        """Parsed JSON artefact, or ``None`` when absent."""
        text = self.read_artifact_text(run_id, path)
        return None if text is None else json.loads(text)


def stringify(value: Any) -> str:
    """Param/tag text for a Python value (JSON for containers, ``str`` otherwise)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list, tuple, bool)) or value is None:
        return json.dumps(value, sort_keys=True, default=str)
    return str(value)


def flatten(config: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """Yield ``(dotted.key, leaf)`` pairs of a nested dict (lists stay leaves)."""
    if isinstance(config, dict):
        for k, v in config.items():
            yield from flatten(v, f"{prefix}{k}.")
    else:
        yield prefix.rstrip("."), config
