"""Child process that profiles one (solution, workload) away from the timing worker.

Profilers leave state behind in the process they ran in: on the H200 (2026-11-30), after torch.profiler
(Kineto, a second CUPTI client) and an ncu run in the evaluation worker, the next timed calls of the
same kernel read about twice their earlier latency. So the worker never profiles itself: it starts this
module, which builds the request's solution, draws its first workload's inputs (trial-0 seed), calls
it once untimed and then

* ``ncu`` mode (run under ``ncu``, :mod:`kernelopt.harness.ncu`): once between ``cudaProfilerStart``
  and ``cudaProfilerStop``, so that only the candidate's own launches are profiled;
* ``torch`` mode: under torch.profiler (:func:`kernelopt.harness.profiling.torch_profile`), printing
  the kernel table as one JSON line on stdout.

    python -m kernelopt.harness.profile_target {ncu|torch} REQUEST.json DEVICE
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from kernelopt.data.records import EvalRequest
from kernelopt.harness.builders import build
from kernelopt.harness.inputs import allocate_outputs, make_inputs
from kernelopt.harness.profiling import torch_profile

MODES = ("ncu", "torch")


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in MODES:
        print("usage: python -m kernelopt.harness.profile_target {ncu|torch} REQUEST.json DEVICE", file=sys.stderr)
        return 2
    mode = argv[0]
    request = EvalRequest.model_validate_json(Path(argv[1]).read_text())
    device = torch.device(argv[2])
    defn, sol, wl = request.definition, request.solution, request.workloads[0]
    fn = build(sol, defn)
    inputs = list(make_inputs(defn, wl, device=device, seed=request.settings.seed).values())
    outs = list(allocate_outputs(defn, wl, device).values()) if sol.spec.destination_passing_style else []
    cuda = device.type == "cuda"
    with torch.no_grad():
        if mode == "torch":
            table = torch_profile(fn, [*inputs, *outs], device)  # makes its own untimed first call
            print(json.dumps(table))
        else:
            fn(*inputs, *outs)
            if cuda:
                torch.cuda.synchronize(device)
                torch.cuda.profiler.start()
            fn(*inputs, *outs)
            if cuda:
                torch.cuda.synchronize(device)
                torch.cuda.profiler.stop()
    print(f"profile_target: {mode} profile of {sol.name} on {wl.uuid} ({device})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
