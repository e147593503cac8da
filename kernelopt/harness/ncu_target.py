"""Child process profiled by ``ncu`` (:mod:`kernelopt.harness.ncu`): builds the request's solution, draws
its first workload's inputs (trial-0 seed) and calls it once untimed, then once between
``cudaProfilerStart`` and ``cudaProfilerStop`` so that only the candidate's own launches are profiled.

    python -m kernelopt.harness.ncu_target REQUEST.json DEVICE
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from kernelopt.data.records import EvalRequest
from kernelopt.harness.builders import build
from kernelopt.harness.inputs import allocate_outputs, make_inputs


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m kernelopt.harness.ncu_target REQUEST.json DEVICE", file=sys.stderr)
        return 2
    request = EvalRequest.model_validate_json(Path(argv[0]).read_text())
    device = torch.device(argv[1])
    defn, sol, wl = request.definition, request.solution, request.workloads[0]
    fn = build(sol, defn)
    inputs = list(make_inputs(defn, wl, device=device, seed=request.settings.seed).values())
    outs = list(allocate_outputs(defn, wl, device).values()) if sol.spec.destination_passing_style else []
    cuda = device.type == "cuda"
    with torch.no_grad():
        fn(*inputs, *outs)
        if cuda:
            torch.cuda.synchronize(device)
            torch.cuda.profiler.start()
        fn(*inputs, *outs)
        if cuda:
            torch.cuda.synchronize(device)
            torch.cuda.profiler.stop()
    print(f"ncu_target: profiled {sol.name} on {wl.uuid} ({device})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
