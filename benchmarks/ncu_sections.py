"""Nsight Compute sections (speed of light, compute / memory workload, occupancy, warp stalls) of a solution's kernels.

The harness's profile (``kernelopt evaluate profile=...``) keeps a compact metric set per launch; this asks ncu for
whole report sections of the kernels whose names match ``--kernels`` (a regular expression), for one call of the
solution on each chosen workload, in the harness's profile child (:mod:`kernelopt.harness.profile_target`: the
inputs of the workload's trial 0, one untimed call, then the profiled one between ``cudaProfilerStart`` / ``Stop``).
``--clock-control none``: the GPU's clocks are never changed. Prints and writes, per launch, every metric of the
sections (``benchmarks/results/ncu_sections_<device>_<name>.{json,md}``)::

    python benchmarks/ncu_sections.py --operator moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 \\
        --solution operators/<def>/solutions/dispatch/<file>.json --workloads 5e8dc11c --kernels gemm --name moe_gemms

Needs a CUDA GPU and the ``ncu`` binary (``$KERNELOPT_NCU`` or the PATH); else it says so and exits 2.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import (
    md_table,
    operator_and_solution,
    sweep_results,
    workloads_by_prefix,
    write_sweep,
)

SECTIONS = ("SpeedOfLight", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis", "Occupancy", "LaunchStats",
            "WarpStateStats", "SchedulerStats")
#: columns of ncu's ``--csv --page details`` report that this script reads
KEYS = ("ID", "Kernel Name", "Block Size", "Grid Size", "Section Name", "Metric Name", "Metric Unit", "Metric Value")


def parse_details(text: str) -> list[dict[str, Any]]:
    """ncu ``--csv --page details`` output (program output and ``==PROF==`` lines mixed in) as one dict per launch:
    ``id``, ``kernel``, ``block``, ``grid`` and ``metrics`` [(section, name, unit, value)] in report order."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if not rows:
        raise ValueError("ncu details: no CSV rows")
    header, body = rows[0], rows[1:]
    missing = [k for k in KEYS if k not in header]
    if missing:
        raise ValueError(f"ncu details: columns {missing} missing from the header {header[:16]}")
    col = {k: header.index(k) for k in KEYS}
    launches: dict[str, dict[str, Any]] = {}
    for row in body:
        row = row + [""] * (len(header) - len(row))  # metric rows may stop before the rule columns at the end
        if not row[col["Metric Name"]]:
            continue  # a rule's row (its advice), no metric
        lid = row[col["ID"]]
        rec = launches.setdefault(lid, {"id": int(lid) if lid.isdigit() else lid, "kernel": row[col["Kernel Name"]],
                                        "block": row[col["Block Size"]], "grid": row[col["Grid Size"]],
                                        "metrics": []})
        rec["metrics"].append((row[col["Section Name"]], row[col["Metric Name"]], row[col["Metric Unit"]],
                               row[col["Metric Value"]]))
    return list(launches.values())


def markdown(data: dict[str, Any], command: str) -> str:
    parts = [f"# Nsight Compute sections: {data['solution']} ({data['device']})\n", f"Command: `{command}`\n",
             (f"Sections {', '.join(data['sections'])}; kernels matching `{data['kernels']}`; one call per workload "
              "(trial-0 inputs, after one untimed call); clocks not locked (`--clock-control none`).\n")]
    for wl in data["rows"]:
        parts.append(f"## {wl['workload'][:8]} ({wl['axes']})\n")
        if wl.get("error"):
            parts.append(f"ncu failed: {wl['error']}\n")
            continue
        for launch in wl["launches"]:
            parts.append(f"### {launch['kernel'][:80]} (launch {launch['id']}, grid {launch['grid']}, "
                         f"block {launch['block']})\n")
            parts.append(md_table(["section", "metric", "unit", "value"], [list(m) for m in launch["metrics"]]))
            parts.append("")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--operator", required=True)
    ap.add_argument("--solution", required=True, help="Solution JSON, seed folder or FOLDER@KEY=VALUE,...")
    ap.add_argument("--workloads", nargs="+", required=True, help="UUID prefixes")
    ap.add_argument("--kernels", default=".", help="regular expression on the kernel names (ncu -k regex:...)")
    ap.add_argument("--sections", nargs="+", default=list(SECTIONS), help="ncu section identifiers")
    ap.add_argument("--timeout-s", type=float, default=240.0, help="per workload")
    ap.add_argument("--name", default=None, help="results file suffix")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    sweep_results("ncu_sections.py", args)
    import torch

    from kernelopt.data.records import EvalRequest
    from kernelopt.harness.ncu import ncu_binary, ncu_report

    if not torch.cuda.is_available() or ncu_binary() is None:
        print("ncu_sections: needs a CUDA GPU and the ncu binary ($KERNELOPT_NCU or the PATH)", file=sys.stderr)
        return 2
    op, sol = operator_and_solution("ncu_sections", args.operator, args.solution)
    selection = ["-k", f"regex:{args.kernels}"]
    for section in args.sections:
        selection += ["--section", section]
    rows = []
    for wl in workloads_by_prefix(op, args.workloads, "ncu_sections"):
        request = EvalRequest(definition=op.definition, solution=sol, workloads=[wl])
        # "report": the whole CSV, so that nothing the parser skips is lost
        out = ncu_report(request, "cuda:0", args.timeout_s, "details", selection, parse_details)
        rows.append({"workload": wl.uuid, "axes": dict(wl.axes), **out})
        said = out.get("error") or f"{len(out['launches'])} launches"
        print(f"  {wl.uuid[:8]}: {said}", file=sys.stderr)
    data = {"device": torch.cuda.get_device_name(), "operator": args.operator, "solution": args.solution,
            "kernels": args.kernels, "sections": args.sections, "rows": rows}
    write_sweep("ncu_sections.py", argv, args, data, markdown)
    return 0 if all("launches" in r for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
