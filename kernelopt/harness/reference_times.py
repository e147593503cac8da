"""Reference latencies shared by every worker on one machine (a small JSON file per key on disk).

The reference is reporting context only (the speedup column), deterministic code on the same seeded inputs, so
the harness times it once per (definition, reference source, workload, settings, device) and reuses the figures:
first from the worker's memory, then from ``<build cache root>/reference_times/`` so that a fresh worker (the
executor restarts one after a crashing candidate, each subprocess evaluation starts afresh) does not time it
again. On the H200 (2026-12-01 call AT) a GDN prefill gate on two 3,999-8,192-token workloads took 80+ s, much of
it running and timing a reference of ~2.4 s a call. The key names the device model and the torch version, so a
cache folder shared between machines never mixes their figures; ``HarnessSettings.cache_reference_timing=false``
turns both levels off.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from kernelopt.harness.build_cache import default_cache_dir

Times = tuple[list[list[float]], "str | None"]


def cache_key(definition: str, reference_source: str, workload_uuid: str, settings_key: str,
              device: Any) -> str:
    """Stable hex key of one reference timing (the same in every process; Python's ``hash`` of a string is not)."""
    model = torch.cuda.get_device_name(device) if getattr(device, "type", "") == "cuda" else "cpu"
    payload = json.dumps([definition, hashlib.sha1(reference_source.encode()).hexdigest(), workload_uuid,
                          settings_key, str(device), model, torch.__version__])
    return hashlib.sha1(payload.encode()).hexdigest()


def _path(key: str, root: Path | None) -> Path:
    return (root or default_cache_dir()) / "reference_times" / f"{key}.json"


def load(key: str, root: Path | None = None) -> Times | None:
    """The stored ``(trial times in ms, timer name)`` of ``key``, or ``None`` (absent or unreadable)."""
    try:
        data = json.loads(_path(key, root).read_text())
        times = [[float(x) for x in trial] for trial in data["times_ms"]]
        return (times, data.get("timer")) if times else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: str, times: list[list[float]], timer: str | None, root: Path | None = None) -> None:
    """Write ``key``'s figures atomically (another worker may read it at the same time); errors are ignored: the
    cache only saves time."""
    path = _path(key, root)
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
