"""`kernelopt report`: leaderboard of an operator or campaign, PNG plots logged to the campaign."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kernelopt.cli.display import make_console
from kernelopt.cli.optimize import leaderboard_table


def report(target: str, *, tracking_uri: str | None = None, out_dir: str = "reports",
           compare: Sequence[str] | None = None) -> int:
    """Print the leaderboard; for a campaign (or an operator's latest campaign) write plots."""
    from kernelopt.tracking import TrackingStore

    console = make_console()
    store = TrackingStore(tracking_uri)
    rows = store.leaderboard(target)
    console.print(leaderboard_table(rows, limit=20))
    campaign = target if store.campaign_exists(target) else None
    if campaign is None:
        campaigns = store.list_campaigns(target)
        campaign = campaigns[0] if campaigns else None
    if campaign is None:
        console.print("no campaign to plot")
        return 0
    out = Path(out_dir) / campaign
    files = store.write_report(campaign, out, compare=list(compare or []))
    for name, path in files.items():
        console.print(f"{name}: {path}")
    return 0
