"""Physical lower bound on latency (REFERENCE §7, "aggregator underflow"): bytes / peak bandwidth.

A correct kernel must at least write its outputs and read the inputs it depends on in full, once,
from device memory (the official timer flushes the L2 before every call). The floor is
``bytes / peak_bandwidth`` with the datasheet peak, which no real kernel reaches; a latency below it
means the work escaped the measurement (skipped launches, work on another stream or thread,
timer tampering). Sparse operators name the inputs they read in full in ``policy.json``
(``roofline_inputs``); others count every input. CPUs have no floor here (no reliable peak).
"""

from __future__ import annotations

import torch

from kernelopt.data.definition import DTYPE_BYTES, Definition

#: Datasheet HBM bandwidth in bytes/s by device-name fragment (first match wins).
PEAK_BANDWIDTH: tuple[tuple[str, float], ...] = (
    ("H200", 4.8e12), ("B200", 8.0e12), ("GB200", 8.0e12), ("H100 NVL", 3.9e12), ("H100 PCIe", 2.0e12),
    ("H100", 3.35e12), ("H20", 4.0e12), ("A100-SXM4-80GB", 2.039e12), ("A100", 1.555e12),
)


def peak_bandwidth(device_name: str) -> float | None:
    """Datasheet peak bandwidth for a device name, or ``None`` when unknown."""
    for fragment, bw in PEAK_BANDWIDTH:
        if fragment in device_name:
            return bw
    return None


def device_peak_bandwidth(device: torch.device) -> float | None:
    """Peak bandwidth of a CUDA device (``None`` for CPUs and unknown GPUs)."""
    if device.type != "cuda":
        return None
    return peak_bandwidth(torch.cuda.get_device_name(device))


def floor_bytes(definition: Definition, axes: dict[str, int], inputs: list[str] | None = None) -> int:
    """Bytes every correct kernel moves: all outputs plus ``inputs`` (default: all inputs)."""
    names = list(definition.outputs) + (list(definition.inputs) if inputs is None else list(inputs))
    total = 0.0
    for name in names:
        spec = definition.inputs.get(name) or definition.outputs.get(name)
        if spec is None:
            raise ValueError(f"roofline_inputs names '{name}', which is not a tensor of {definition.name}")
        n = 1
        for s in definition.shape_of(name, axes) or ():
            n *= s
        total += n * DTYPE_BYTES[spec.dtype.value]
    return int(total)


def roofline_floor_ms(definition: Definition, axes: dict[str, int], peak_bytes_per_s: float,
                      inputs: list[str] | None = None) -> float:
    """The memory-roofline floor in milliseconds."""
    return floor_bytes(definition, axes, inputs) / peak_bytes_per_s * 1e3


def below_floor(latency_ms: float, floor_ms: float) -> str | None:
    """The rejection reason when ``latency_ms`` is below ``floor_ms``, else ``None``."""
    if latency_ms < floor_ms:
        return (f"faster than the memory roofline: {latency_ms:.4g} ms < floor {floor_ms:.4g} ms "
                "(bytes that must move / datasheet peak bandwidth)")
    return None
