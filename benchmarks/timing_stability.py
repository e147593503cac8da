"""Timing stability: the same kernel evaluated N times in one run (official settings, one worker);
reports each run's mean latency and the coefficient of variation (target <= 2 % for >= 10 us kernels).

    python benchmarks/timing_stability.py --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import device_label, md_table, write_results
from kernelopt.cli.build import gpu_available, harness_settings
from kernelopt.controller.workloads import workload_size
from kernelopt.data import EvalRequest, load_solution
from kernelopt.executor import make_executor
from kernelopt.operators import load_operator

# (operator, solution file relative to the operator folder, workload uuid prefix or "largest")
CASES = [
    ("rmsnorm_h4096", "solutions/baselines/reference.json", "largest"),
    ("gemm_n4096_k4096", "solutions/baselines/reference.json", "largest"),
    ("gdn_decode_qk4_v8_d128_k_last", "solutions/baselines/fla.json", "largest"),
]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    on_gpu = gpu_available()
    rows, payload = [], {"repeats": a.repeats, "cases": []}
    with make_executor("local" if on_gpu else "cpu") as ex:
        for name, rel, which in CASES:
            op = load_operator(name)
            f = op.path / rel
            if not f.exists():
                print(f"skip {name}: {rel} missing")
                continue
            sol = load_solution(f)
            wl = max(op.workloads, key=workload_size) if which == "largest" else next(
                w for w in op.workloads if w.uuid.startswith(which))
            settings = harness_settings({"preset": "official" if on_gpu else "quick"}, name, on_gpu)
            settings = settings.model_copy(update={"time_reference": False})
            means = []
            for _ in range(a.repeats):
                r = ex.evaluate(EvalRequest(definition=op.definition, solution=sol, workloads=[wl],
                                            settings=settings)).results[0]
                if not r.passed:
                    print(f"{name}: {r.status.value} {r.log[-400:]}")
                    break
                means.append(r.latency.mean_ms)
            if len(means) < 2:
                continue
            cv = statistics.stdev(means) / statistics.fmean(means)
            case = {"operator": name, "solution": sol.name, "workload": wl.uuid, "axes": wl.axes,
                    "means_ms": means, "cv": cv, "timer": r.latency.timer}
            payload["cases"].append(case)
            rows.append([name, sol.name, ",".join(f"{k}={v}" for k, v in wl.axes.items()),
                         " ".join(f"{m:.4f}" for m in means), f"{100 * cv:.2f}%", r.latency.timer])
            print(rows[-1], flush=True)
    table = md_table(["operator", "solution", "workload", "run means (ms)", "CV", "timer"], rows)
    cmd = "python benchmarks/timing_stability.py " + " ".join(sys.argv[1:])
    write_results(f"timing_stability_{device_label()}", {"command": cmd, **payload},
                  f"# Timing stability ({device_label()})\n\nCommand: `{cmd}`\n\n{table}")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
