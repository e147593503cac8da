"""Summarise an operator's latest campaign from the tracking store: leaderboard, champion, per-workload
champion latency vs the reference (harness figures from the same run), decisions.

    python benchmarks/campaign_summary.py rmsnorm_h4096 --name campaign_rmsnorm_h200
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import md_table, results_path, write_results
from kernelopt.campaign_types import ANALYSIS_ARTIFACT
from kernelopt.cli.display import speedup_text
from kernelopt.tracking import TrackingStore


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("operator")
    p.add_argument("--name", required=True, help="results file stem")
    p.add_argument("--tracking-uri", default=None)
    p.add_argument("--command", default="", help="the command that ran the campaign (recorded)")
    p.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    a = p.parse_args()
    results_path(a.name, a.out, "campaign_summary.py")  # checked before reading the store
    try:  # a mistyped store path is refused, not created empty
        store = TrackingStore(a.tracking_uri, existing=True)
    except (ValueError, FileNotFoundError) as exc:
        raise SystemExit(f"campaign_summary.py: {exc}") from None
    campaigns = store.list_campaigns(a.operator)  # oldest first
    if not campaigns:
        raise SystemExit(f"no campaign for {a.operator}")
    cid = campaigns[-1]  # the latest (it took the oldest of a store holding several)
    board = store.leaderboard(cid)
    champ = store.get_champion(a.operator)
    decisions = store.load_decisions(cid)
    state = store.load_state(cid)
    payload = {"operator": a.operator, "campaign_run_id": cid, "command": a.command,
               "candidates": len({c.solution_hash for c in state.candidates}),
               "runs": len(state.candidates), "decisions": [d.model_dump(exclude={"evidence"}) for d in decisions],
               "leaderboard": board[:15], "champion": champ.model_dump() if champ else None}
    ran = f"`{a.command}`" if a.command else "not recorded (`campaign_summary.py --command` names it)"
    md = [f"# Campaign on {a.operator}\n", f"Command: {ran}\n",
          f"Campaign run `{cid}`: {payload['candidates']} distinct candidates, {payload['runs']} evaluation runs, "
          f"{len(decisions)} decisions; last: {decisions[-1].action if decisions else '-'}"
          f" ({decisions[-1].reason if decisions else ''})\n"]
    md.append(md_table(["#", "candidate", "stage", "passed", "mean ms", "p95 ms", "speedup vs ref", "direction"],
                       [[r["rank"], r["name"], r["stage"], f"{r['pass_count']}/{r['workload_count']}",
                         "-" if r["mean_latency_ms"] is None else f"{r['mean_latency_ms']:.5f}",
                         "-" if r["p95_latency_ms"] is None else f"{r['p95_latency_ms']:.5f}",
                         "-" if r["speedup_vs_reference"] is None else f"{r['speedup_vs_reference']:.2f}",
                         r.get("direction") or "-"] for r in board[:15]]))
    failed = [r for r in board[:15] if r["pass_count"] < (r["workload_count"] or 0)]
    if failed:  # the first failing workload's status and last log line, as the controller's repair table reads it
        md.append("\n## Why candidates failed\n")
        md.append(md_table(["#", "candidate", "stage", "direction", "first failure"],
                           [[r["rank"], r["name"], r["stage"], r.get("direction") or "-",
                             r.get("failure") or "-"] for r in failed]))
    analysis = store.read_artifact_json(cid, ANALYSIS_ARTIFACT) or {}  # bands.json (the stored state has none)
    bottlenecks = analysis.get("bottlenecks") or {}
    if analysis:  # the evidence the controller chose directions from: roofline or measured profile
        payload["bottlenecks"] = bottlenecks
        payload["device"], payload["ceilings"] = analysis.get("device"), analysis.get("ceilings")
        md.append("\n## Band bottlenecks (the controller's evidence)\n")
        c = analysis.get("ceilings")
        md.append(f"Device ceilings of {analysis.get('device')}: "
                  + (f"copy {c['copy_bandwidth_bytes_per_s'] / 1e12:.2f} TB/s, bf16 "
                     f"{c['matmul_flops_per_s']['bf16'] / 1e12:.0f} / fp8 {c['matmul_flops_per_s']['fp8'] / 1e12:.0f}"
                     f" TFLOP/s ({c.get('measured_by') or 'source not recorded'})\n" if c else "none\n"))
        if bottlenecks:
            md.append(md_table(["band", "class", "source", "evidence"],
                               [[band, b.get("class"), b.get("source", "roofline"),
                                 ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                                           for k, v in sorted((b.get("evidence") or {}).items()))]
                                for band, b in bottlenecks.items()]))
        md += [f"- {n}" for n in analysis.get("notes") or []]
    if champ is not None:
        run = store.client.get_run(champ.run_id)
        m = run.data.metrics
        rows, speedups = [], []
        for uuid, ms in sorted(champ.per_workload_ms.items(), key=lambda kv: kv[1]):
            ref = m.get(f"ref_ms.{uuid}")
            if ref is not None:  # the mean is of these ratios, not of the table's rounded text
                speedups.append(ref / ms)
            rows.append([uuid[:8], f"{ms:.5f}", "-" if ref is None else f"{ref:.5f}",
                         speedup_text(None if ref is None else ref / ms)])
        payload["champion_mean_speedup_vs_reference"] = statistics.fmean(speedups) if speedups else None
        md.append(f"\n## Champion: run `{champ.run_id}` (registry version {champ.version}), "
                  f"mean {champ.mean_latency_ms:.5f} ms\n")
        if champ.provisional:
            md.append(f"Provisional: promoted when the wall clock ran out, {champ.provisional}.\n")
        if speedups:
            md.append(f"Mean per-workload speedup vs the PyTorch reference: {speedup_text(statistics.fmean(speedups))} "
                      f"(min {speedup_text(min(speedups))}, max {speedup_text(max(speedups))})\n")
        md.append(md_table(["workload", "champion ms", "reference ms", "speedup"], rows))
    write_results(a.name, payload, "\n".join(md), out_dir=a.out)
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
