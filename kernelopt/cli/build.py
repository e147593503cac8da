"""Turn composed config into objects: harness settings, executor, store, generator."""

from __future__ import annotations

import os
from typing import Any

from omegaconf import DictConfig, OmegaConf

from kernelopt.data import HarnessSettings

PRESETS: dict[str, dict[str, int]] = {
    "official": {"warmup": 10, "iterations": 50, "trials": 3},
    "quick": {"warmup": 1, "iterations": 5, "trials": 2},
}


def gpu_available() -> bool:
    """True when a CUDA device is visible (and not hidden by CUDA_VISIBLE_DEVICES='')."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) == "":
        return False
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:  # noqa: BLE001 - a broken torch install means "no GPU"
        return False


def _plain(cfg: Any) -> dict[str, Any]:
    if isinstance(cfg, DictConfig):
        return OmegaConf.to_container(cfg, resolve=True, enum_to_str=True)  # type: ignore[return-value]
    return dict(cfg)


def harness_settings(harness_cfg: Any, operator: str, on_gpu: bool) -> HarnessSettings:
    """Preset (official on GPU / quick on CPU for ``auto``) < operator's harness.json < explicit config."""
    from kernelopt.operators import operator_settings

    h = _plain(harness_cfg)
    preset = h.get("preset", "auto")
    if preset == "auto":
        preset = "official" if on_gpu else "quick"
    timer = h.get("timer") or "auto"
    if not on_gpu and timer not in ("auto", "cpu_wall"):  # it used to become cpu_wall without a word
        raise ValueError(f"harness.timer={timer} needs a CUDA GPU; none is visible "
                         "(harness.timer=auto times with cpu_wall on the CPU)")
    values: dict[str, Any] = dict(PRESETS[preset])
    op = operator_settings(operator)
    if preset == "quick":  # keep the quick counts; take only the operator's tolerances
        op = {k: v for k, v in op.items() if k not in ("warmup", "iterations", "trials")}
    values.update(op)
    for key in ("warmup", "iterations", "trials", "atol", "rtol", "required_matched_ratio"):
        if h.get(key) is not None:
            values[key] = h[key]
    values.update({
        "timeout_s": h.get("timeout_s", 300.0), "flush_l2": h.get("flush_l2", True),
        "time_reference": h.get("time_reference", True), "seed": h.get("seed", 0),
        "cache_reference_timing": h.get("cache_reference_timing", True),
        "replay_check": h.get("replay_check", False), "precision_probe": h.get("precision_probe", False),
        "static_policy": h.get("static_policy", "library"),
        "timer": timer if on_gpu else "cpu_wall",
    })
    from kernelopt.data import build_model

    return build_model(HarnessSettings, {k: f"harness.{k}" for k in values}, **values)  # a refused value: its key


def executor_kind(executor_cfg: Any, on_gpu: bool) -> str:
    """Resolve ``auto`` to ``local`` (GPU) or ``cpu``."""
    kind = _plain(executor_cfg).get("kind", "auto")
    if kind == "auto":
        return "local" if on_gpu else "cpu"
    if kind in ("local", "isolated") and not on_gpu:
        raise ValueError(f"executor.kind={kind} needs a CUDA GPU; none is visible (use executor=cpu)")
    return kind


def make_executor(executor_cfg: Any, on_gpu: bool):  # type: ignore[no-untyped-def]
    """Build the executor named by the config."""
    from kernelopt.executor import make_executor as _make
    from kernelopt.executor.sandbox import SANDBOXES
    from kernelopt.harness.builders import DEFAULT_KEEP_BUILT, KEEP_BUILT_ENV

    e = _plain(executor_cfg)
    kind = executor_kind(executor_cfg, on_gpu)
    extra = {"address": e.get("address")} if kind == "ray" else {}  # Ray cluster to join (None: start one)
    env = {s.env: str(e.get(s.kind) or s.on) for s in SANDBOXES}  # the workers' network and files sandboxes
    keep = e.get("keep_built", DEFAULT_KEEP_BUILT)
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise ValueError(f"executor.keep_built={keep!r}: expected a whole number >= 1 (built solutions a worker "
                         f"keeps; default {DEFAULT_KEEP_BUILT})")
    env[KEEP_BUILT_ENV] = str(keep)
    return _make(kind, devices=e.get("devices"), timeout_s=e.get("timeout_s"), env=env, **extra)


def make_store(tracking_cfg: Any):  # type: ignore[no-untyped-def]
    """Build the tracking store named by the config."""
    from kernelopt.tracking import TrackingStore

    t = _plain(tracking_cfg)
    return TrackingStore(t.get("uri"), t.get("artifact_root"))
