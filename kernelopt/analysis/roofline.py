"""Roofline model: per-operator minimum bytes/FLOPs (``operators/<def>/roofline.py``), device
ceilings (``ceilings/<device>.json``) and the physical lower bound of a timed workload.

``lower_bound_ms = max(bytes / copy_bandwidth, flops / rate[mma_dtype])`` where ``mma_dtype`` None
(no matrix multiply) uses the fp32 CUDA-core rate. ``roofline_fraction = bound / measured`` (1.0 =
at the roofline).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CEILINGS_DIR = Path(__file__).resolve().parent / "ceilings"
MMA_DTYPES = ("bf16", "fp8", "fp32")

RooflineFn = Callable[[dict[str, int]], dict[str, Any]]


class Ceilings(BaseModel):
    """Device ceilings (bytes/s, FLOP/s) and where each number came from."""

    model_config = ConfigDict(extra="forbid")

    device: str
    match: list[str] = Field(default_factory=list)
    copy_bandwidth_bytes_per_s: float = Field(gt=0)
    matmul_flops_per_s: dict[str, float]
    launch_latency_s: float = Field(5e-6, ge=0)
    sources: dict[str, str] = Field(default_factory=dict)
    measured_by: str = ""

    def rate(self, mma_dtype: str | None) -> float:
        """FLOP/s for a ceiling class (None = CUDA-core fp32 work)."""
        key = "fp32" if mma_dtype is None else mma_dtype
        if key not in self.matmul_flops_per_s:
            raise ValueError(f"ceilings for {self.device}: no matmul rate for mma_dtype {key!r}")
        return self.matmul_flops_per_s[key]


#: Environment variable naming the ceilings cache (default ``~/.cache/kernelopt/ceilings``).
CACHE_ENV = "KERNELOPT_CEILINGS_DIR"


def ceilings_cache_dir() -> Path:
    """Where ceilings measured on this machine are kept (``$KERNELOPT_CEILINGS_DIR``, default
    ``~/.cache/kernelopt/ceilings``): one file per device model, written by ``python -m kernelopt.harness.ceilings
    --cache`` (a campaign on a GPU with no ceilings runs it once)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "kernelopt" / "ceilings"


def cached_ceilings_path(device_name: str) -> Path:
    """The cache file of a device model (``"NVIDIA H100 80GB HBM3"`` -> ``nvidia_h100_80gb_hbm3.json``)."""
    slug = re.sub(r"[^a-z0-9]+", "_", device_name.lower()).strip("_") or "device"
    return ceilings_cache_dir() / f"{slug}.json"


def save_ceilings(data: dict[str, Any], path: Path | None = None) -> Path:
    """Write measured ceilings (validated as :class:`Ceilings`) to ``path`` (default: the device's file in the
    ceilings cache, :func:`cached_ceilings_path`), under a temporary name of its own and then renamed, so two
    campaigns measuring the same model at once each replace the file whole and a reader never sees half of one."""
    Ceilings.model_validate(data)
    path = path or cached_ceilings_path(data["device"])
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.", delete=False) as tmp:
        tmp.write(json.dumps(data, indent=2) + "\n")
    os.replace(tmp.name, path)
    return path


def _matching(path: Path, name: str) -> Ceilings | None:
    ceil = Ceilings.model_validate(json.loads(path.read_text()))
    return ceil if any(m.lower() in name for m in ceil.match) else None


def load_ceilings(device_name: str | None, directory: Path = CEILINGS_DIR, cache: bool = True) -> Ceilings | None:
    """Ceilings for a device name (e.g. ``"NVIDIA H200"``), or None for CPUs and unknown devices.

    Every ``*.json`` in ``directory`` (the reviewed files shipped with kernelopt) is a candidate first; it applies
    when one of its ``match`` strings occurs (case-insensitive) in the device name. Then, unless ``cache`` is
    False, the device's file in the ceilings cache (:func:`cached_ceilings_path`); a cache file that cannot be read
    is passed over (the next campaign measures again), a bad shipped file is an error.
    """
    if not device_name:
        return None
    name = device_name.lower()
    for path in sorted(directory.glob("*.json")):
        try:
            found = _matching(path, name)
        except (ValueError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: bad ceilings file: {exc}") from exc
        if found:
            return found
    if not cache:
        return None
    path = cached_ceilings_path(device_name)
    try:
        return _matching(path, name) if path.is_file() else None
    except (OSError, ValueError, json.JSONDecodeError):
        return None


def _import(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"kernelopt_roofline_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_roofline_module(operator_dir: Path) -> ModuleType | None:
    """The operator's ``roofline.py`` module, or None when the folder has none."""
    path = Path(operator_dir) / "roofline.py"
    if not path.is_file():
        return None
    module = _import(path)
    if not callable(getattr(module, "roofline", None)):
        raise ValueError(f"{path}: defines no function roofline(axes)")
    return module


def load_roofline(operator_dir: Path) -> RooflineFn | None:
    """A checked wrapper of ``operators/<def>/roofline.py::roofline`` (None when absent)."""
    module = load_roofline_module(operator_dir)
    if module is None:
        return None
    path = Path(operator_dir) / "roofline.py"

    def checked(axes: dict[str, int]) -> dict[str, Any]:
        out = module.roofline(dict(axes))
        if not isinstance(out, dict) or not {"bytes", "flops", "mma_dtype"} <= set(out):
            raise ValueError(f"{path}: roofline() must return bytes, flops and mma_dtype, got {out!r}")
        if out["mma_dtype"] is not None and out["mma_dtype"] not in MMA_DTYPES:
            raise ValueError(f"{path}: mma_dtype {out['mma_dtype']!r} not in {MMA_DTYPES} or None")
        if int(out["bytes"]) < 0 or int(out["flops"]) < 0:
            raise ValueError(f"{path}: negative bytes/flops for axes {axes}: {out}")
        return {"bytes": int(out["bytes"]), "flops": int(out["flops"]), "mma_dtype": out["mma_dtype"]}

    return checked


def full_axes(const_axes: dict[str, int], axes: dict[str, int]) -> dict[str, int]:
    """A workload's var axes merged over the definition's const axes."""
    return {**const_axes, **axes}


def lower_bound_ms(nbytes: float, flops: float, mma_dtype: str | None, ceilings: Ceilings) -> float:
    """Physical lower bound (ms): ``max(bytes / bandwidth, flops / rate)``."""
    t_mem = nbytes / ceilings.copy_bandwidth_bytes_per_s
    t_math = flops / ceilings.rate(mma_dtype)
    return 1e3 * max(t_mem, t_math)


def roofline_fraction(measured_ms: float, bound_ms: float) -> float:
    """How close a measurement is to its lower bound: ``bound / measured`` (1.0 = on the roofline)."""
    if measured_ms <= 0:
        raise ValueError(f"roofline_fraction: measured_ms must be > 0, got {measured_ms}")
    return bound_ms / measured_ms


def workload_bounds(roofline: RooflineFn, const_axes: dict[str, int], workloads: dict[str, dict[str, int]],
                    ceilings: Ceilings | None) -> dict[str, dict[str, Any]]:
    """Per workload UUID: bytes, flops, mma_dtype, and (with ceilings) ``bound_ms`` and the limiter.

    Args:
        roofline: From :func:`load_roofline`.
        const_axes: The definition's const axes.
        workloads: UUID -> var axes.
        ceilings: Device ceilings, or None (CPU): then no ``bound_ms``.
    """
    out: dict[str, dict[str, Any]] = {}
    for uuid, axes in workloads.items():
        r = roofline(full_axes(const_axes, axes))
        row: dict[str, Any] = dict(r)
        if ceilings is not None:
            t_mem = r["bytes"] / ceilings.copy_bandwidth_bytes_per_s
            t_math = r["flops"] / ceilings.rate(r["mma_dtype"])
            row["bound_ms"] = 1e3 * max(t_mem, t_math)
            row["limiter"] = "memory" if t_mem >= t_math else "compute"
        out[uuid] = row
    return out
