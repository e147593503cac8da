"""Builders for tracking tests: small hand-made Solutions and EvalResults, and a sqlite store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kernelopt.data import EvalResult, HarnessSettings, LatencyStats, Solution, WorkloadResult

DEFINITION = "rmsnorm_h4096"
UUIDS = ["280860e6-08f0-427c-b7c5-9cffcfab1a10", "2e90109a-282e-484f-b94b-61f49e72fde2",
         "e7c939ae-2083-4b6f-a51a-8c76ffd08926"]
SETTINGS_KEY = HarnessSettings().key()


def fresh_db(template: Path, path: Path) -> Path:
    """Copy the template database to ``path`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, path)
    return path


def make_solution(name: str = "k1", block: int = 64, seed: bool = True) -> Solution:
    """A two-file triton solution whose PARAMS line depends on ``block`` (so does its hash)."""
    data = {
        "name": name, "definition": DEFINITION, "author": "kernelopt-test",
        "spec": {"language": "triton", "target_hardware": ["H200"], "entry_point": "kernel.py::run"},
        "sources": [
            {"path": "kernel.py", "content": f"PARAMS = {{\"BLOCK\": {block}}}  # kernelopt:params\n"
                                             "def run(x, w, out):\n    out.copy_(x)\n"},
            {"path": "helpers/util.py", "content": "X = 1\n"},
        ],
    }
    if seed:
        data["kernelopt"] = {"seed": "rows", "params": {"BLOCK": block, "WARPS": 4}}
    return Solution.model_validate(data)


def _stats(ms: float) -> LatencyStats:
    return LatencyStats(mean_ms=ms, trial_medians_ms=[ms * 0.99, ms, ms * 1.01], p95_ms=ms * 1.1,
                        timer="cpu_wall")


def make_result(solution: Solution, latencies: list[float | None], uuids: list[str] | None = None,
                ref_ms: float = 2.0) -> EvalResult:
    """An EvalResult: ``None`` latency = that workload failed with RUNTIME_ERROR."""
    uuids = uuids or UUIDS[:len(latencies)]
    results = []
    for i, (u, ms) in enumerate(zip(uuids, latencies)):
        if ms is None:
            results.append(WorkloadResult(uuid=u, axes={"batch_size": i + 1}, status="RUNTIME_ERROR",
                                          log=f"Traceback: boom on {u}"))
        else:
            results.append(WorkloadResult(
                uuid=u, axes={"batch_size": i + 1}, status="PASSED", latency=_stats(ms),
                reference_latency=_stats(ref_ms), speedup=ref_ms / ms, max_abs_error=1e-4,
                max_rel_error=1e-3, matched_ratio=1.0, log=""))
    return EvalResult(definition=DEFINITION, solution=solution.name, solution_hash=solution.hash(),
                      results=results, environment={"hardware": "cpu", "libs": {"torch": "2.13"}},
                      timer="cpu_wall", build_log="built ok", wall_s=1.25)


def params(**extra) -> dict:
    """Typical candidate params."""
    out = {"settings_key": SETTINGS_KEY, "generator": "offline", "model": None, "direction": "tile",
           "band": "small", "parent_run_id": None}
    out.update(extra)
    return out


def png_colors(path: Path) -> tuple[tuple[int, int], int]:
    """``(size, number of distinct colours)`` of a PNG (via Pillow, a matplotlib dependency)."""
    from PIL import Image

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    with Image.open(path) as img:
        rgb = img.convert("RGB")
        colors = rgb.getcolors(maxcolors=1 << 24) or []
        return rgb.size, len(colors)


def dump(obj) -> str:
    """Canonical JSON for comparisons."""
    return json.dumps(obj, sort_keys=True, default=str)
