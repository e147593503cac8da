"""Multi-GPU throughput: a fixed batch of candidates evaluated on 1 GPU versus N GPUs (one persistent
worker per GPU, one request per GPU at a time). Verdicts must be identical; wall times, candidates
per minute and the speedup (target >= 1.8x on 2 GPUs) go to
``benchmarks/results/multi_gpu_throughput_<device>.json`` (and ``.md``).

    python benchmarks/multi_gpu_throughput.py                       # all visible GPUs vs GPU 0
    python benchmarks/multi_gpu_throughput.py --gpus 2 --candidates 16 --repeats 3
    python benchmarks/multi_gpu_throughput.py --executor ray        # the same through Ray actors

The batch is ``--candidates`` distinct parameter points of the rmsnorm_h4096 ``rmsnorm_rowwise`` seed,
each swept over every workload with the official 10/50/3 timing. A first untimed pass over the whole
batch fills Triton's and the harness's build caches, so neither timed configuration pays compilation;
the timed 1-GPU and N-GPU runs then alternate (``--repeats`` times) and the median wall time counts.
Needs at least 2 visible GPUs and refuses otherwise.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import device_label, md_table, write_results
from kernelopt.data import EvalRequest, EvalResult, HarnessSettings, Solution
from kernelopt.executor import make_executor, visible_gpus
from kernelopt.generators.seeds import load_seed, seeds_dir
from kernelopt.operators import load_operator

OPERATOR = "rmsnorm_h4096"
SEED = "rmsnorm_rowwise"
TARGET_SPEEDUP_2GPU = 1.8


def candidate_batch(count: int) -> tuple[list[Solution], list[Solution]]:
    """``count`` distinct valid parameter points of the seed, spread over its space (deterministic), and
    the remaining valid points (for warming workers up with candidates outside the batch)."""
    seed = load_seed(seeds_dir(OPERATOR) / SEED, definition=OPERATOR)
    valid = seed.valid_points()
    if len(valid) <= count:
        raise SystemExit(f"--candidates {count}: the seed {SEED} has only {len(valid)} valid points")
    step = len(valid) / count
    chosen = sorted({int(i * step) for i in range(count)})
    rest = [i for i in range(len(valid)) if i not in set(chosen)]
    return [seed.instantiate(valid[i]) for i in chosen], [seed.instantiate(valid[i]) for i in rest]


def statuses(res: EvalResult) -> list[str]:
    """Status names in workload order."""
    return [r.status.value for r in res.results]


def run_batch(kind: str, gpus: int, requests: list[EvalRequest], env: dict[str, str],
              prewarm: list[EvalRequest] | None = None) -> tuple[float, list[EvalResult]]:
    """Wall time of ``evaluate_many`` over the batch on ``gpus`` GPUs. Workers are started beforehand and,
    with ``prewarm``, each first evaluates one candidate from outside the batch on every workload (a
    campaign's steady state: CUDA context, reference latencies and generated inputs already in the
    worker; the batch's candidates are still new to it)."""
    options: dict[str, Any] = {"env": env}
    if kind == "ray":
        options["gpu"] = True
    with make_executor(kind, devices=list(range(gpus)), **options) as ex:
        ex.start()
        if prewarm:
            warm = ex.evaluate_many(prewarm[:gpus])
            lanes = lanes_used(warm)
            if len(lanes) < gpus:
                print(f"  note: warm-up requests reached {len(lanes)} of {gpus} lanes {lanes}", flush=True)
        t0 = time.perf_counter()
        results = ex.evaluate_many(requests)
        return time.perf_counter() - t0, results


def lanes_used(results: list[EvalResult]) -> dict[str, int]:
    """How many requests each lane (GPU or Ray actor) ran."""
    info = [r.environment.get("executor", {}) for r in results]
    return dict(Counter(str(i.get("actor") or i.get("device")) for i in info))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpus", type=int, default=0, help="GPUs of the parallel run (0: all visible)")
    p.add_argument("--candidates", type=int, default=16, help="candidates in the batch")
    p.add_argument("--repeats", type=int, default=3, help="timed runs of each configuration (median counts)")
    p.add_argument("--executor", choices=["local", "ray"], default="local")
    p.add_argument("--workloads", type=int, default=0, help="first N workloads only (0: all)")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--cold-workers", action="store_true",
                   help="time fresh workers (each pays reference timing and input generation per workload) "
                        "instead of workers warmed up on a candidate outside the batch")
    a = p.parse_args()

    visible = visible_gpus()
    n = a.gpus or len(visible)
    if len(visible) < 2 or n < 2 or n > len(visible):
        print(f"multi_gpu_throughput: needs at least 2 visible CUDA GPUs and --gpus <= visible; "
              f"{len(visible)} visible (CUDA_VISIBLE_DEVICES / nvidia-smi), --gpus {a.gpus}. "
              "Nothing measured.",
              file=sys.stderr)
        return 2
    op = load_operator(OPERATOR)
    workloads = op.workloads[: a.workloads] if a.workloads > 0 else op.workloads
    settings = HarnessSettings(warmup=a.warmup, iterations=a.iterations, trials=a.trials)
    batch, others = candidate_batch(a.candidates)
    requests = [EvalRequest(definition=op.definition, solution=s, workloads=workloads, settings=settings)
                for s in batch]
    prewarm = None if a.cold_workers else [
        EvalRequest(definition=op.definition, solution=s, workloads=workloads, settings=settings)
        for s in others[:n]]
    env = {"KERNELOPT_CACHE_DIR": tempfile.mkdtemp(prefix="kernelopt-bench-builds-")}
    print(f"{len(batch)} candidates x {len(workloads)} workloads of {OPERATOR}, settings "
          f"{settings.warmup}/{settings.iterations}/{settings.trials}, executor {a.executor}: 1 vs {n} GPUs",
          flush=True)

    warm_s, reference = run_batch(a.executor, n, requests, env)  # fills the build caches, untimed
    print(f"warm-up pass on {n} GPUs: {warm_s:.1f} s", flush=True)
    times: dict[int, list[float]] = {1: [], n: []}
    used: dict[int, dict[str, int]] = {}
    for rep in range(a.repeats):
        for gpus in ((1, n) if rep % 2 == 0 else (n, 1)):
            wall, results = run_batch(a.executor, gpus, requests, env, prewarm)
            if [statuses(r) for r in results] != [statuses(r) for r in reference]:
                print(f"VERDICTS DIFFER on {gpus} GPU(s) (repeat {rep})", file=sys.stderr)
                return 1
            times[gpus].append(wall)
            used[gpus] = lanes_used(results)
            print(f"  repeat {rep}: {gpus} GPU(s) {wall:.1f} s", flush=True)
    one, many = statistics.median(times[1]), statistics.median(times[n])
    speedup = one / many
    label = device_label()
    passed = sum(r.pass_count for r in reference)
    payload = {
        "operator": OPERATOR, "seed": SEED, "executor": a.executor, "candidates": len(batch),
        "solution_hashes": [s.hash() for s in batch], "workloads": len(workloads),
        "settings": {"warmup": settings.warmup, "iterations": settings.iterations, "trials": settings.trials},
        "gpus": n, "visible_gpus": len(visible), "workers": "fresh" if a.cold_workers else
        "warmed up on a candidate outside the batch", "passed_workloads": passed, "verdicts_identical": True,
        "wall_s": {"1": times[1], str(n): times[n]},
        "median_wall_s": {"1": round(one, 3), str(n): round(many, 3)},
        "candidates_per_min": {"1": round(60 * len(batch) / one, 2),
                               str(n): round(60 * len(batch) / many, 2)},
        "speedup": round(speedup, 3), "efficiency": round(speedup / n, 3),
        "lanes_used": {str(k): v for k, v in used.items()},
        "target_speedup_2gpu": TARGET_SPEEDUP_2GPU,
        "meets_target": bool(speedup >= TARGET_SPEEDUP_2GPU * n / 2) if n >= 2 else None,
    }
    med = {g: statistics.median(times[g]) for g in (1, n)}
    rows = [(f"{g} GPU(s)", f"{med[g]:.1f}", f"{60 * len(batch) / med[g]:.1f}", f"{one / med[g]:.2f}x")
            for g in (1, n)]
    md = (f"# Multi-GPU throughput ({label}, executor {a.executor})\n\n{len(batch)} candidates of {SEED} x "
          f"{len(workloads)} workloads, settings {settings.warmup}/{settings.iterations}/{settings.trials}, "
          f"median of {a.repeats}; workers {payload['workers']}; verdicts identical ({passed} workload passes per run). Target on 2 GPUs: "
          f">= {TARGET_SPEEDUP_2GPU}x.\n\n"
          + md_table(["configuration", "batch wall time (s)", "candidates / min", "speedup"], rows))
    path = write_results(f"multi_gpu_throughput_{label}", payload, md)
    print(md)
    print(f"speedup {speedup:.2f}x on {n} GPUs -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
