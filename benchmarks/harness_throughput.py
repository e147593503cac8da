"""Harness throughput: one candidate's full workload sweep on the persistent worker versus the
isolated mode (a fresh process per workload, as the official runner does). Same verdicts asserted;
wall times and their ratio written to ``benchmarks/results/harness_throughput_<device>.json``.

    python benchmarks/harness_throughput.py                 # GPU when present (official 10/50/3), else CPU
    python benchmarks/harness_throughput.py --device cpu    # Triton interpreter, 0/1/1, batch <= 256

Both modes run on one lane (GPU 0 or one CPU worker) so the comparison is per device. The persistent
run is reported cold (worker start included) and warm (a second sweep on the same worker); the
isolated run comes second, so it already finds Triton's on-disk cache warm (conservative for it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import device_label, md_table, write_results
from kernelopt.data import EvalRequest, EvalResult, HarnessSettings, Solution
from kernelopt.executor import IsolatedExecutor, make_executor, visible_gpus
from kernelopt.operators import load_operator
from kernelopt.cli.tasks import load_solution_arg

OPERATOR = "rmsnorm_h4096"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SEED = ROOT / "operators" / OPERATOR / "solutions" / "seeds" / "rmsnorm_rowwise"
FIXTURE = ROOT / "tests" / "fixtures" / "solutions" / "rmsnorm_triton_ok"


def load_candidate(path: Path | None) -> Solution:
    """The Triton candidate: a seed folder (``seed.json``, at its defaults), a solution folder
    (``solution.json`` + sources) or, by default, the operator's rmsnorm_rowwise seed (else the test
    fixture)."""
    return load_solution_arg(str(path or (DEFAULT_SEED if DEFAULT_SEED.is_dir() else FIXTURE)), None)


def other_candidate(first: Solution) -> Solution | None:
    """Another valid parameter point of the default seed (a candidate the worker has not built yet), or
    ``None`` when the candidate is not the default seed."""
    from kernelopt.generators.seeds import load_seed

    if not DEFAULT_SEED.is_dir():
        return None
    seed = load_seed(DEFAULT_SEED, definition=OPERATOR)
    return next((sol for sol in map(seed.instantiate, seed.valid_points()) if sol.hash() != first.hash()), None)


def phase_totals(res: EvalResult) -> dict[str, float]:
    """Seconds per evaluation phase summed over the workloads."""
    out: dict[str, float] = {}
    for r in res.results:
        for k, v in (r.extra.get("phase_s") or {}).items():
            out[k] = round(out.get(k, 0.0) + float(v), 3)
    return out


def phase_table(phases: dict[str, dict[str, float]]) -> str:
    """Markdown: one row per phase, one column per mode."""
    names = sorted({k for p in phases.values() for k in p})
    return md_table(["phase", *phases], [(n, *(f"{p.get(n, 0.0):.2f}" for p in phases.values())) for n in names])


def statuses(res: EvalResult) -> list[str]:
    """Status names in workload order."""
    return [r.status.value for r in res.results]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["auto", "cpu", "gpu"], default="auto")
    p.add_argument("--solution", type=Path, default=None, help="seed or solution folder")
    p.add_argument("--workloads", type=int, default=0, help="first N workloads only (0: all)")
    p.add_argument("--max-batch", type=int, default=None,
                   help="skip workloads with a larger batch_size (default: none on GPU, 256 on CPU, "
                        "where the interpreter needs minutes per 10k-row workload); 0: no limit")
    p.add_argument("--warmup", type=int, default=None)
    p.add_argument("--iterations", type=int, default=None)
    p.add_argument("--trials", type=int, default=None)
    a = p.parse_args()

    gpu = bool(visible_gpus()) if a.device == "auto" else a.device == "gpu"
    if a.device == "gpu" and not visible_gpus():
        print("--device gpu: no CUDA GPU visible", file=sys.stderr)
        return 2
    defaults = dict(warmup=10, iterations=50, trials=3) if gpu else dict(warmup=0, iterations=1, trials=1)
    chosen = {k: v for k, v in dict(warmup=a.warmup, iterations=a.iterations, trials=a.trials).items()
              if v is not None}
    settings = HarnessSettings(**{**defaults, **chosen})
    op = load_operator(OPERATOR)
    max_batch = a.max_batch if a.max_batch is not None else (0 if gpu else 256)
    workloads = [w for w in op.workloads if not max_batch or w.axes["batch_size"] <= max_batch]
    workloads = workloads[: a.workloads] if a.workloads > 0 else workloads
    solution = load_candidate(a.solution)
    request = EvalRequest(definition=op.definition, solution=solution, workloads=workloads, settings=settings)
    env = {"KERNELOPT_CACHE_DIR": tempfile.mkdtemp(prefix="kernelopt-bench-builds-")}
    print(f"{solution.name}: {len(workloads)} workloads of {OPERATOR} on {'GPU 0' if gpu else 'CPU'}, "
          f"settings {settings.warmup}/{settings.iterations}/{settings.trials}", flush=True)

    t0 = time.perf_counter()
    with make_executor("local" if gpu else "cpu", devices=[0] if gpu else 1, env=env) as ex:
        ex.start()
        startup_s = time.perf_counter() - t0
        cold = ex.evaluate(request)
        persistent_cold_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        warm = ex.evaluate(request)
        persistent_warm_s = time.perf_counter() - t1
        # What a campaign sees: a candidate the (already warm) worker has not built yet.
        second = other_candidate(solution) if a.solution is None else None
        new_request = request.model_copy(update={"solution": second}) if second else None
        t3 = time.perf_counter()
        new = ex.evaluate(new_request) if new_request else None
        persistent_new_s = time.perf_counter() - t3
    t2 = time.perf_counter()
    with IsolatedExecutor(devices=[0] if gpu else None, cpu=not gpu, env=env) as iso:
        isolated = iso.evaluate(request)
        isolated_s = time.perf_counter() - t2
        t4 = time.perf_counter()
        isolated_new = iso.evaluate(new_request) if new_request else None
        isolated_new_s = time.perf_counter() - t4

    if new and isolated_new and statuses(new) != statuses(isolated_new):
        print(f"VERDICTS DIFFER (second candidate):\n persistent {statuses(new)}\n isolated "
              f"{statuses(isolated_new)}", file=sys.stderr)
        return 1
    if not statuses(cold) == statuses(warm) == statuses(isolated):
        print(f"VERDICTS DIFFER:\n persistent {statuses(cold)}\n warm {statuses(warm)}\n"
              f" isolated {statuses(isolated)}", file=sys.stderr)
        return 1
    lat_ratio = [i.latency.mean_ms / w.latency.mean_ms for i, w in zip(isolated.results, warm.results)
                 if i.latency and w.latency and w.latency.mean_ms > 0]
    label = device_label() if gpu else "cpu"
    payload = {
        "operator": OPERATOR, "solution": solution.name, "solution_hash": solution.hash(),
        "device": label, "workloads": len(workloads), "max_batch": max_batch or None,
        "settings": {"warmup": settings.warmup, "iterations": settings.iterations, "trials": settings.trials},
        "verdicts": statuses(isolated), "passed": isolated.pass_count,
        "persistent_startup_s": round(startup_s, 3),
        "persistent_cold_s": round(persistent_cold_s, 3),
        "persistent_warm_s": round(persistent_warm_s, 3),
        "isolated_s": round(isolated_s, 3),
        "isolated_over_persistent_cold": round(isolated_s / persistent_cold_s, 3),
        "isolated_over_persistent_warm": round(isolated_s / persistent_warm_s, 3),
        "median_latency_ratio_isolated_over_persistent": round(statistics.median(lat_ratio), 4)
        if lat_ratio else None,
        "second_candidate": second.name if second else None,
        "persistent_new_candidate_s": round(persistent_new_s, 3) if new else None,
        "isolated_new_candidate_s": round(isolated_new_s, 3) if new else None,
        "isolated_over_persistent_new_candidate": round(isolated_new_s / persistent_new_s, 3) if new else None,
        "timer": warm.timer,
        # host seconds per harness phase summed over the workloads (WorkloadResult.extra.phase_s)
        "phase_s": {"persistent_cold": phase_totals(cold), "persistent_warm": phase_totals(warm),
                    "isolated": phase_totals(isolated),
                    **({"persistent_new_candidate": phase_totals(new),
                        "isolated_new_candidate": phase_totals(isolated_new)} if new and isolated_new else {})},
    }
    rows = [("persistent, cold (worker start included)", f"{persistent_cold_s:.2f}", "1.00"),
            ("persistent, warm", f"{persistent_warm_s:.2f}", f"{persistent_warm_s / persistent_cold_s:.2f}"),
            ("isolated (fresh process per workload)", f"{isolated_s:.2f}", f"{isolated_s / persistent_cold_s:.2f}")]
    if new and isolated_new:
        rows += [(f"persistent, new candidate {second.name} on the warm worker", f"{persistent_new_s:.2f}",
                  f"{persistent_new_s / persistent_cold_s:.2f}"),
                 (f"isolated, new candidate {second.name}", f"{isolated_new_s:.2f}",
                  f"{isolated_new_s / persistent_cold_s:.2f}")]
    md = (f"# Harness throughput ({label})\n\n{solution.name}, {len(workloads)} workloads of {OPERATOR}, "
          f"settings {settings.warmup}/{settings.iterations}/{settings.trials}, verdicts identical "
          f"({isolated.pass_count}/{len(workloads)} passed)\n\n"
          + md_table(["mode", "sweep wall time (s)", "relative to persistent cold"], rows)
          + "\n\nHost seconds per harness phase, summed over the workloads (the rest is build, worker start and "
          "transport):\n\n" + phase_table(payload["phase_s"]))
    path = write_results(f"harness_throughput_{label}", payload, md)
    print(md)
    print(f"isolated / persistent (warm): {payload['isolated_over_persistent_warm']:.2f}x; new candidate: "
          f"{payload['isolated_over_persistent_new_candidate']}x -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
