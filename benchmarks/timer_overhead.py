"""Timer overhead: host seconds that one official timing trial costs with each timer, side by side in one
process, and the GPU time each reports. Answers "where do the seconds per workload go" for the timer
itself: CUPTI kept initialised between trials (the harness default), CUPTI finalised after every trial
(the earlier behaviour), and CUDA events.

    python benchmarks/timer_overhead.py                    # GPU only; 10/50 per trial, 6 trials per variant
    python benchmarks/timer_overhead.py --trials 10

Cases: a tiny kernel (rmsnorm reference, batch 1), a larger one (rmsnorm reference, batch 8804) and,
with ``--gdn``, the launch-heavy GDN decode reference at batch 1 (1/5 per trial) to decide whether the
harness still needs ``cupti_max_call_ms`` (its CUDA-event fallback for launch-heavy calls). Variants run
interleaved (trial by trial) so clock drift hits them alike. Writes
``benchmarks/results/timer_overhead_<device>.{json,md}``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import device_label, md_table, write_results

VARIANTS = {  # name -> time_callable keyword arguments
    "cupti (kept initialised)": {"timer": "cupti", "cupti_persistent": True},
    "cupti (finalised per trial)": {"timer": "cupti", "cupti_persistent": False},
    "cuda_event": {"timer": "cuda_event"},
}


def case_args(operator: str, axes: dict[str, int]) -> tuple:
    """(reference callable, positional inputs) for a workload of ``operator`` with these axes."""
    from kernelopt.data import Workload
    from kernelopt.harness.inputs import make_inputs
    from kernelopt.harness.reference import load_reference
    from kernelopt.operators import load_operator

    op = load_operator(operator)
    base = next(w for w in op.workloads if all(w.axes.get(k) == v for k, v in axes.items()))
    wl = Workload.model_validate(base.model_dump())
    inputs = make_inputs(op.definition, wl, device="cuda", seed=0)
    return load_reference(op.definition), list(inputs.values())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=6)
    p.add_argument("--gdn", action="store_true", help="also the launch-heavy GDN decode reference")
    a = p.parse_args()
    import torch

    from kernelopt.harness.cupti_timer import cupti_available, last_timing_stats
    from kernelopt.harness.timing import time_callable

    if not torch.cuda.is_available():
        print("timer_overhead needs a CUDA GPU", file=sys.stderr)
        return 2
    variants = {k: v for k, v in VARIANTS.items() if v["timer"] != "cupti" or cupti_available()}
    cases = [("rmsnorm_h4096", {"batch_size": 1}, 10, 50), ("rmsnorm_h4096", {"batch_size": 8804}, 10, 50)]
    if a.gdn:
        cases.append(("gdn_decode_qk4_v8_d128_k_last", {"batch_size": 1}, 1, 5))
    rows, payload = [], {"trials": a.trials, "cases": []}
    details: list[tuple] = []
    for operator, axes, warmup, iterations in cases:
        try:
            fn, args = case_args(operator, axes)
        except StopIteration:
            print(f"skip {operator} {axes}: no such workload")
            continue
        host: dict[str, list[float]] = {k: [] for k in variants}
        gpu: dict[str, list[float]] = {k: [] for k in variants}
        ran: dict[str, str] = {}
        phases: dict[str, list[dict[str, float]]] = {k: [] for k in variants}
        for _ in range(a.trials):
            for name, kw in variants.items():
                before = last_timing_stats()
                t0 = time.perf_counter()
                times, timer = time_callable(fn, args, warmup=warmup, iterations=iterations, device="cuda",
                                             **kw)
                host[name].append(time.perf_counter() - t0)
                gpu[name].append(statistics.median(times))
                ran[name] = timer
                stats = last_timing_stats()
                if timer == "cupti" and stats and stats != before:  # where a CUPTI timing's host time went
                    phases[name].append(stats)
        label = f"{operator} {axes} ({warmup}/{iterations})"
        for name in variants:
            h, g = statistics.median(host[name][1:] or host[name]), statistics.median(gpu[name])
            rows.append((label, name, ran[name], f"{h:.3f}", f"{max(host[name]):.3f}", f"{g * 1e3:.2f}"))
            payload["cases"].append({"operator": operator, "axes": axes, "warmup": warmup,
                                     "iterations": iterations, "variant": name, "timer": ran[name],
                                     "host_s_per_trial": host[name], "median_ms": gpu[name],
                                     "cupti_phases": phases[name]})
            if phases[name]:
                last = phases[name][-1]
                details.append((label, name, *(f"{last.get(k, 0):.4f}" for k in
                                               ("enable_s", "calls_s", "flush_s", "disable_s")),
                                int(last.get("api_records", 0)), int(last.get("gpu_records", 0))))
            print(rows[-1], flush=True)
    md = ("# Timer overhead (" + device_label() + ")\n\nHost seconds per official timing trial "
          "(`time_callable`: untimed call, warm-ups, timed iterations, all with the L2 flush) and the "
          "median GPU time it reported; median over trials after the first. Command: "
          "`python benchmarks/timer_overhead.py" + (" --gdn" if a.gdn else "") + "`\n\n"
          + md_table(["case", "variant", "timer that ran", "host s / trial (median)", "host s (max)",
                      "median GPU us"], rows)
          + ("\n\nHost seconds inside the CUPTI timing of the last trial (the timed iterations only):\n\n"
             + md_table(["case", "variant", "enable s", "timed calls s", "flush s", "disable s", "API records",
                         "GPU records"], details) if details else ""))
    write_results(f"timer_overhead_{device_label()}", payload, md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
