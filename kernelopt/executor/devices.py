"""Which GPUs the executor may use, found without initialising CUDA in the parent process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

_PROBE = "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)"


def _from_visible_env(value: str) -> list[str]:
    """Parse ``CUDA_VISIBLE_DEVICES``: entries up to the first invalid one, as CUDA does."""
    out: list[str] = []
    for item in value.split(","):
        item = item.strip()
        if not item or item.startswith("-"):
            break
        out.append(item)
    return out


def _nvidia_smi_count() -> int | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return 0
    return sum(1 for line in proc.stdout.splitlines() if line.startswith("GPU "))


def _torch_probe_count() -> int:
    try:
        proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False)
        return int(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else 0
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return 0


def visible_gpus() -> list[str]:
    """Physical ids (as ``CUDA_VISIBLE_DEVICES`` entries) of the GPUs this process may use.

    Order of evidence: ``CUDA_VISIBLE_DEVICES`` when set; else ``nvidia-smi -L``; else, when a
    driver node exists, a torch probe in a subprocess (the parent never initialises CUDA).
    """
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        ids = _from_visible_env(env)
        if not ids:
            return []
        count = _nvidia_smi_count()
        if count is None:  # no nvidia-smi: ask torch (it applies CUDA_VISIBLE_DEVICES itself)
            count = _torch_probe_count() if Path("/dev/nvidiactl").exists() else 0
            return ids[:count]
        return ids if count > 0 else []
    count = _nvidia_smi_count()
    if count is None:
        count = _torch_probe_count() if Path("/dev/nvidiactl").exists() else 0
    return [str(i) for i in range(count)]


def resolve_devices(devices: Sequence[int | str] | None) -> list[tuple[int, str]]:
    """Map a user selection onto (logical index, physical id) pairs.

    Args:
        devices: None for every visible GPU, or logical indices (``0``, ``"cuda:1"``, ``"1"``)
            relative to this process's view.

    Raises:
        ValueError: an index is out of range or malformed, naming the visible GPUs.
    """
    visible = visible_gpus()
    if devices is None:
        return list(enumerate(visible))
    out: list[tuple[int, str]] = []
    for d in devices:
        text = str(d).removeprefix("cuda:").strip()
        if not text.isdigit() or int(text) >= len(visible):
            raise ValueError(
                f"executor devices: {d!r} is not a visible GPU (visible: "
                f"{[f'cuda:{i}' for i in range(len(visible))] or 'none'})"
            )
        out.append((int(text), visible[int(text)]))
    return out
