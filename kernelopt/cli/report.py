"""`kernelopt report`: leaderboard of an operator or campaign, PNG plots logged to the campaign."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.table import Table

from kernelopt.cli.display import make_console
from kernelopt.cli.optimize import leaderboard_table
from kernelopt.cli.paths import output_dir


def report(target: str, *, tracking_uri: str | None = None, out_dir: str = "reports",
           compare: Sequence[str] | None = None) -> int:
    """Print the leaderboard; for a campaign (or an operator's latest campaign) write plots."""
    from kernelopt.tracking import TrackingStore

    console = make_console()
    store = TrackingStore(tracking_uri, existing=True)
    output_dir(out_dir, "--out")
    rows = store.leaderboard(target)
    console.print(leaderboard_table(rows, limit=20))
    campaign = target if store.campaign_exists(target) else None
    if campaign is None:
        campaigns = store.list_campaigns(target)  # oldest first
        campaign = campaigns[-1] if campaigns else None
        if campaign is not None:  # the table above is the operator's; the files below are one campaign's
            console.print(f"files of {target}'s latest campaign {campaign} (of {len(campaigns)}; `kernelopt report "
                          "<campaign run id>` for another):", markup=False)
    if campaign is None:
        console.print("no campaign to plot")
        return 0
    others = [c for c in dict.fromkeys(compare or []) if c != campaign]  # once each; the latest is listed first
    if compare is not None and not others and not store.campaign_exists(target):
        others = [c for c in store.list_campaigns(target) if c != campaign]  # `--compare` alone: all of them
    unknown = [c for c in others if not store.campaign_exists(c)]
    if unknown:  # checked before any file is written (the plots were, then the comparison failed)
        raise ValueError(f"--compare {' '.join(unknown)}: no such campaign run in {store.tracking_uri} (`kernelopt "
                         f"report {target} --compare` with no ids compares all of the operator's campaigns)")
    out = Path(out_dir) / campaign
    files = store.write_report(campaign, out, compare=others)
    if others:
        rows = store.compare_campaigns([campaign, *others])
        console.print(comparison_table(rows))
        path = out / "compare.json"
        path.write_text(json.dumps(rows, indent=2))
        files["compare"] = path
    for name, path in files.items():
        console.print(f"{name}: {path}", markup=False)
    return 0


def comparison_table(rows: list[dict]) -> Table:
    """Campaigns side by side: best latency, pass rate, candidates to target, tokens, cost."""
    t = Table(title="campaign comparison")
    for col in ("campaign", "mode", "generator", "candidates", "pass rate", "best ms", "to target",
                "tokens", "cost $"):
        t.add_column(col)
    for r in rows:
        t.add_row(r["campaign"][:8], str(r["agent_mode"]), str(r["generator"]), str(r["candidates"]),
                  "-" if r["pass_rate"] is None else f"{100 * r['pass_rate']:.0f}%",
                  "-" if r["best_latency_ms"] is None else f"{r['best_latency_ms']:.5f} ({r['stage_basis']})",
                  "-" if r["candidates_to_target"] is None else str(r["candidates_to_target"]),
                  str(r["tokens"]), "-" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}")
    return t
