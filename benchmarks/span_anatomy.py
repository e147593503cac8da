"""Where the official span of a solution's call goes: each kernel's start offset, duration and the idle gap before it.

The official timing (CUPTI) measures a call from its first kernel's start to its last kernel's end, after an L2
flush and a synchronize. A profile's device time against that latency gives the span's idle share; this script
gives its anatomy, from the same loop: each workload is timed by the harness's own timing (``time_callable`` with
the CUPTI timer: flush, synchronize, call, synchronize; ``--warmup`` calls first), its records kept, and per
activity position the medians over the ``--iterations`` calls of its start offset, duration and the gap before it
(:func:`kernelopt.analysis.span_anatomy.span_anatomy`). Why: on the H200 (2026-12-02 call BG) the retained MoE
kernel's mid-band calls read ~90 us longer than their five kernels' device time, with no host synchronisation in
the call; which launch the GPU waits for is the question.

    python benchmarks/span_anatomy.py --operator moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 \\
        --solution operators/<def>/solutions/dispatch/q8m16f_q8m64s4f_80.json --workloads 6230e838 eedc63b2

``--host-calls N`` also profiles the host side of N more calls per workload (``cProfile``, each call between two
synchronizes): the call's wall time on the host without the profiler, and the functions with the most own time per
call (``--host-top``), e.g. a synchronizing copy or the launches after it while the GPU idles (the profiler's own
overhead inflates many small functions: compare rows, not totals).

Needs a CUDA GPU and cupti-python (the official timer). ``--solution`` takes what ``kernelopt evaluate`` takes (a
Solution JSON, a seed folder, ``FOLDER@KEY=VALUE,...``); without ``--workloads``, three spread over the sizes.
Writes ``benchmarks/results/span_anatomy_<device>[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    fmt,
    md_table,
    operator_and_solution,
    spread_order,
    sweep_results,
    workloads_by_prefix,
    write_sweep,
)


def pick(op: Any, prefixes: list[str] | None) -> list[Any]:
    """The workloads whose UUIDs start with ``prefixes`` (each must match one), else three spread over sizes."""
    if not prefixes:
        from kernelopt.controller.workloads import workload_size

        return spread_order(list(op.workloads), workload_size)[:3]
    return workloads_by_prefix(op, prefixes, "span_anatomy")


def host_profile(fn: Any, args: list[Any], calls: int, top: int, sync: Any = None) -> dict[str, Any]:
    """The host side of ``calls`` calls of ``fn(*args)``, each between two ``sync()``: the mean wall time of a call
    without the profiler, and the ``top`` functions by own time per call under ``cProfile``."""
    import cProfile
    import pstats
    import time

    sync = sync or (lambda: None)
    walls = []
    for _ in range(calls):
        sync()
        t0 = time.perf_counter()
        fn(*args)
        walls.append(time.perf_counter() - t0)
        sync()
    prof = cProfile.Profile()
    for _ in range(calls):
        sync()
        prof.enable()
        fn(*args)
        prof.disable()
        sync()
    rows = [{"function": f"{'/'.join(Path(file).parts[-2:])}:{line}({name})", "calls": n / calls,
             "own_us": own / calls * 1e6, "cum_us": cum / calls * 1e6}
            for (file, line, name), (_cc, n, own, cum, _callers) in pstats.Stats(prof).stats.items()]
    rows.sort(key=lambda r: -r["own_us"])
    return {"calls": calls, "wall_us": sum(walls) / calls * 1e6, "functions": rows[:top]}


def anatomy_of(fn: Any, dps: bool, op: Any, wl: Any, warmup: int, iterations: int,
               host_calls: int = 0, host_top: int = 15) -> dict[str, Any]:
    """Time ``fn`` on ``wl``'s inputs with the harness's official timing (CUPTI), keep its records, return the
    anatomy (with ``host_calls``, the host profile of that many more calls)."""
    import torch

    from kernelopt.harness.cupti_timer import records_anatomy
    from kernelopt.harness.inputs import allocate_outputs, make_inputs
    from kernelopt.harness.timing import time_callable

    dev = torch.device("cuda")
    args = list(make_inputs(op.definition, wl, device=dev, seed=0).values())
    outs = list(allocate_outputs(op.definition, wl, dev).values()) if dps else []
    records: dict[str, Any] = {}
    time_callable(fn, [*args, *outs], warmup=warmup, iterations=iterations, device=dev, timer="cupti",
                  records=records)
    row = {"workload": wl.uuid, "axes": dict(wl.axes), **records_anatomy(records)}
    if host_calls:
        row["host"] = host_profile(fn, [*args, *outs], host_calls, host_top, sync=torch.cuda.synchronize)
    return row


def markdown(data: dict[str, Any], command: str) -> str:
    parts = [f"# Anatomy of the official span: {data['solution']} ({data['device']})", "",
             f"Command: `{command}`", "",
             (f"Medians over {data['iterations']} timed calls after {data['warmup']} (L2 flushed, synchronized "
             "around each call, CUPTI records), per activity in start order; 'launch called / returned': when the host "
             "entered and left the API call that launched it (CUPTI's runtime/driver records, the same clock), from "
             "the span's start."), ""]
    for r in data["rows"]:
        axes = ", ".join(f"{k} {v}" for k, v in r["axes"].items())
        parts += [(f"## {r['workload'][:8]} ({axes}): span {fmt(r['span_us'], '.1f')} us, busy "
                  f"{fmt(r['busy_us'], '.1f')} us, idle {fmt(r['idle_pct'], '.1f')} %"), "",
                  md_table(["#", "activity", "start us", "duration us", "gap before us", "launch called us",
                            "launch returned us"],
                           [[i, a["name"][:60], fmt(a["start_us"], ".1f"), fmt(a["duration_us"], ".1f"),
                             fmt(a["gap_before_us"], ".1f"), fmt(a.get("launch_us"), ".1f"),
                             fmt(a.get("launch_return_us"), ".1f")] for i, a in enumerate(r["activities"])]), ""]
        if r.get("host"):
            h = r["host"]
            parts += [(f"Host side, {h['calls']} calls: {fmt(h['wall_us'], '.1f')} us of host wall time per call "
                      "without the profiler; under cProfile, the functions with the most own time per call:"), "",
                      md_table(["function", "calls", "own us", "cumulative us"],
                               [[f["function"][:90], fmt(f["calls"], ".0f"), fmt(f["own_us"], ".1f"),
                                 fmt(f["cum_us"], ".1f")] for f in h["functions"]]), ""]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--operator", required=True)
    ap.add_argument("--solution", required=True, help="Solution JSON, seed folder or FOLDER@KEY=VALUE,...")
    ap.add_argument("--workloads", nargs="*", default=None, help="UUID prefixes (default: three spread over sizes)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--host-calls", type=int, default=0, help="profile the host side of this many more calls")
    ap.add_argument("--host-top", type=int, default=15, help="functions listed in the host profile")
    ap.add_argument("--name", default=None, help="results file suffix")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    sweep_results("span_anatomy.py", args)
    if args.host_calls < 0 or args.host_top < 1:
        ap.error(f"--host-calls must be >= 0 and --host-top >= 1 (got {args.host_calls}, {args.host_top})")
    import torch

    from kernelopt.harness.builders import build
    from kernelopt.harness.cupti_timer import cupti_available

    if not torch.cuda.is_available() or not cupti_available():
        print("span_anatomy: needs a CUDA GPU and cupti-python (the official timer's records)", file=sys.stderr)
        return 2
    op, sol = operator_and_solution("span_anatomy", args.operator, args.solution)
    fn = build(sol, op.definition)
    rows = []
    for wl in pick(op, args.workloads):
        rows.append(anatomy_of(fn, sol.spec.destination_passing_style, op, wl, args.warmup, args.iterations,
                               args.host_calls, args.host_top))
        print(f"  {wl.uuid[:8]}: span {rows[-1]['span_us']:.1f} us, idle {rows[-1]['idle_pct']:.1f} %",
              file=sys.stderr)
    data = {"device": torch.cuda.get_device_name(), "operator": args.operator, "solution": args.solution,
            "warmup": args.warmup, "iterations": args.iterations, "rows": rows}
    write_sweep("span_anatomy.py", argv, args, data, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
