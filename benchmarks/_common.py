"""Shared helpers for benchmark scripts: output folder, device label, markdown tables."""

from __future__ import annotations

import datetime as _dt
import json
import platform
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def device_label() -> str:
    """'h200', 'cpu', ... for file names."""
    try:
        import torch

        if torch.cuda.is_available():
            name = torch.cuda.get_device_name(0).lower()
            return "h200" if "h200" in name else name.replace(" ", "_")
    except Exception:  # noqa: BLE001
        pass
    return "cpu"


def stamp() -> dict[str, Any]:
    """When and where a figure was measured."""
    info: dict[str, Any] = {"date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                            "host": platform.node(), "python": platform.python_version()}
    try:
        import torch

        info["torch"] = torch.__version__
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001
        pass
    return info


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def write_results(name: str, payload: dict[str, Any], markdown: str | None = None) -> Path:
    """Write ``results/<name>.json`` (and ``.md``); return the JSON path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"measured": stamp(), **payload}, indent=2))
    if markdown is not None:
        (RESULTS / f"{name}.md").write_text(markdown + "\n")
    return path


def spread_order(items: list[Any], key) -> list[Any]:  # type: ignore[no-untyped-def]
    """Order items so that any prefix covers the range of ``key`` evenly (for budgeted sweeps)."""
    srt = sorted(items, key=key)
    out, seen = [], set()
    step = len(srt)
    while len(out) < len(srt) and step >= 1:
        for i in range(0, len(srt), step):
            if i not in seen:
                seen.add(i)
                out.append(srt[i])
        step //= 2
    return out
