"""Reference latencies shared by the workers of one run (a small JSON file per key in a folder).

The reference is reporting context only (the speedup column), deterministic code on the same seeded inputs, so
the harness times it once per (definition, reference source, workload, settings, device) and reuses the figures:
first from the worker's memory, then from the folder named by ``$KERNELOPT_REFERENCE_TIMES_DIR``, which the
executor gives every worker of one run (``kernelopt.executor.sandbox.run_reference_times_dir``: one temporary
folder per parent process, removed at its exit), so that a fresh worker (the executor restarts one after a
crashing candidate; each subprocess evaluation starts afresh) does not time it again. On the H200 (2026-12-01
call AT) a GDN prefill gate on two 3,999-8,192-token workloads took 80+ s, much of it running and timing a
reference of ~2.4 s a call. Without the variable (an in-process ``evaluate``) only the worker's memory is used.
The key names the device model and the torch version; ``HarnessSettings.cache_reference_timing=false`` turns
both levels off. Not kept across runs by default: on a loaded host a reference timed once reads high (a CPU
campaign's workers contend for the cores) and would stay so.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

#: The folder of the run's shared timings (set for every worker by ``kernelopt.executor.sandbox.worker_env``).
ENV = "KERNELOPT_REFERENCE_TIMES_DIR"
Times = tuple[list[list[float]], "str | None"]


def cache_key(definition: str, reference_source: str, workload_uuid: str, settings_key: str,
              device: Any) -> str:
    """Stable hex key of one reference timing (the same in every process; Python's ``hash`` of a string is not)."""
    import torch  # (the harness has it loaded; kept local so the executor can read ENV without torch)

    model = torch.cuda.get_device_name(device) if getattr(device, "type", "") == "cuda" else "cpu"
    payload = json.dumps([definition, hashlib.sha1(reference_source.encode()).hexdigest(), workload_uuid,
                          settings_key, str(device), model, torch.__version__])
    return hashlib.sha1(payload.encode()).hexdigest()


def _path(key: str, root: Path | None) -> Path | None:
    folder = root if root is not None else (Path(os.environ[ENV]) if os.environ.get(ENV) else None)
    return None if folder is None else folder / f"{key}.json"


def load(key: str, root: Path | None = None) -> Times | None:
    """The stored ``(trial times in ms, timer name)`` of ``key`` in ``root`` (default: the run's folder), or
    ``None`` (no folder, absent or unreadable)."""
    path = _path(key, root)
    if path is None:
        return None
    try:
        data = json.loads(path.read_text())
        times = [[float(x) for x in trial] for trial in data["times_ms"]]
        return (times, data.get("timer")) if times else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: str, times: list[list[float]], timer: str | None, root: Path | None = None) -> None:
    """Write ``key``'s figures atomically (another worker may read it at the same time); errors are ignored: the
    cache only saves time."""
    path = _path(key, root)
    if path is None:
        return
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump({"times_ms": times, "timer": timer}, f)
        os.replace(tmp, path)
        tmp = None
    except (OSError, TypeError, ValueError):
        return
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
