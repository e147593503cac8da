"""Environment snapshot recorded with every evaluation (hardware, library versions, clocks)."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

import torch

from kernelopt.harness.sandbox_status import sandbox_status


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _libs() -> dict[str, str]:
    libs = {"python": platform.python_version(), "torch": torch.__version__}
    if torch.version.cuda:
        libs["cuda"] = str(torch.version.cuda)
    triton = sys.modules.get("triton")
    if triton is None:
        try:
            import triton
        except Exception:
            triton = None
    if triton is not None:
        libs["triton"] = str(getattr(triton, "__version__", "unknown"))
    try:
        import numpy

        libs["numpy"] = numpy.__version__
    except Exception:
        pass
    from kernelopt.harness.cupti_timer import cupti_version

    cv = cupti_version()
    if cv:
        libs["cupti"] = cv
    return libs


def nvml_readings(index: int) -> dict[str, Any]:
    """SM clock (MHz), memory clock (MHz), temperature (C) and power (W) of a GPU via NVML.

    Returns an empty dict when ``pynvml`` (nvidia-ml-py) is missing or NVML fails. ``index`` is the
    CUDA ordinal; it maps to the same NVML index unless ``CUDA_VISIBLE_DEVICES`` reorders devices.
    """
    try:
        import pynvml
    except Exception:
        return {}
    try:
        pynvml.nvmlInit()
        try:
            h = _nvml_handle(pynvml, index)
            out: dict[str, Any] = {
                "sm_clock_mhz": pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                "mem_clock_mhz": pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM),
                "temperature_c": pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU),
            }
            try:
                out["power_w"] = pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0
            except Exception:
                pass
            return out
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        return {}


def _nvml_handle(pynvml: Any, index: int) -> Any:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        ids = [v.strip() for v in visible.split(",") if v.strip()]
        if index < len(ids):
            tok = ids[index]
            if tok.isdigit():
                return pynvml.nvmlDeviceGetHandleByIndex(int(tok))
            return pynvml.nvmlDeviceGetHandleByUUID(tok)
    return pynvml.nvmlDeviceGetHandleByIndex(index)


def _driver() -> str | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            v = pynvml.nvmlSystemGetDriverVersion()
            return v.decode() if isinstance(v, bytes) else str(v)
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        return None


def snapshot(device: str | torch.device = "cpu") -> dict[str, Any]:
    """Where an evaluation runs.

    Returns:
        ``{hardware, device, device_index, libs{python, torch, cuda?, triton?, numpy, cupti?}, sandbox{network, files},
        driver?,
        gpu{sm_count, l2_bytes, capability, memory_bytes}?, before{sm_clock_mhz, temperature_c, ...}?}``.
    """
    dev = torch.device(device)
    env: dict[str, Any] = {"device": str(dev), "libs": _libs(), "sandbox": sandbox_status()}
    if dev.type == "cuda" and torch.cuda.is_available():
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        env["hardware"] = props.name
        env["device_index"] = index
        env["gpu"] = {
            "sm_count": props.multi_processor_count,
            "l2_bytes": int(getattr(props, "L2_cache_size", 0)),
            "capability": f"{props.major}.{props.minor}",
            "memory_bytes": int(props.total_memory),
        }
        drv = _driver()
        if drv:
            env["driver"] = drv
        env["before"] = nvml_readings(index)
    else:
        env["hardware"] = _cpu_model()
        env["device_index"] = None
    return env
