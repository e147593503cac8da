"""Markdown report of ``benchmarks/contest.py``: the per-operator side-by-side tables (candidates,
pairwise ratios, bands, roofline) and the command/environment header."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: say what to run instead

from benchmarks._common import failure_reason, fmt, md_table, usage_error

EXTERNAL_ROLE = "external"  #: role of a row that records an external package's import probe, not timed


def ratio_text(value: float | None, n: int | None = None) -> str:
    """A ratio as the tables print it (``1.097x``, ``71.42x``, ``0.00018x``; ``-`` for none), with ``(n=N)``."""
    if value is None:
        return "-"
    # three decimals between 1x and 10x: a 1.097x must not read as a target's 1.10x
    text = f"{value:.3f}x" if 1 <= value < 10 else f"{value:.2f}x" if value >= 0.1 else f"{value:.2g}x"
    return text + (f" (n={n})" if n is not None else "")


def _rate(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    scale, prefix = next(((f, p) for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"))
                          if v >= f), (1e3, "k"))
    return f"{v / scale:.3g} {prefix}{unit}/s"


def _roof_cell(rf: dict[str, Any]) -> str:
    if not rf.get("n"):
        return "-"
    key, unit = (("achieved_flops_per_s", "FLOP") if rf.get("limiter") == "compute"
                 else ("achieved_bytes_per_s", "B"))
    frac = "-" if rf.get("fraction") is None else f"{rf['fraction']:.2f}"
    return f"{frac} ({_rate(rf.get(key), unit)}, n={rf['n']})"


def _candidate_row(label: str, c: dict[str, Any]) -> list[Any]:
    if c["role"] == EXTERNAL_ROLE:
        return [label, "-", "-", "-", c["note"]] + ["-"] * 7
    failed = ", ".join(f"{s}:{k}" for s, k in c["status_counts"].items() if s != "PASSED") or "-"
    return [label, c["source"], f"{c['evaluated']}/{c['total']}", c["passed"], failed,
            fmt(c["common_mean_ms"]), fmt(c["mean_ms"]), fmt(c["median_ms"]), fmt(c["p95_ms"]),
            ratio_text(c["speedup_vs_reference"], c["speedup_workloads"]), c["timer"] or "-", c["spent_s"]]


def _band_tables(bands: dict[str, Any], labels: list[str]) -> list[str]:
    with_lat = [lb for lb in labels if any(b["candidates"].get(lb) for b in bands["bands"])]
    if not with_lat:
        return []
    def lat_cell(c: dict[str, Any]) -> str:
        own = c.get("own_n")
        return fmt(c.get("mean_ms")) + (f" (own, n={own})" if own else "")

    lat_rows = [[b["name"], f"{b['common']}/{b['workloads']}"]
                + [lat_cell(b["candidates"].get(lb, {})) for lb in with_lat] for b in bands["bands"]]
    roof_rows = [[b["name"], next((v["roofline"]["limiter"] for v in b["candidates"].values()
                                   if v["roofline"].get("limiter")), "-")]
                 + [_roof_cell(b["candidates"].get(lb, {}).get("roofline", {})) for lb in with_lat]
                 for b in bands["bands"]]
    ceil = f"ceilings {bands['ceilings']}" if bands["ceilings"] else "no ceilings for this device, so no fraction"
    roof_note = (f"Roofline fraction per band, bound/measured over each candidate's passed workloads of the "
                 f"band ({ceil}; achieved throughput in brackets):")
    return ["", f"Per band (axis {bands['band_axis']}; mean ms over the band's common workloads; in a band "
                "with none, over each candidate's own passed workloads of the band: own, n):", "",
            md_table(["band", "common/total"] + [f"{lb} ms" for lb in with_lat], lat_rows), "",
            roof_note, "", md_table(["band", "limiter"] + with_lat, roof_rows)]


def operator_markdown(name: str, data: dict[str, Any]) -> str:
    """The side-by-side tables of one operator."""
    cands = data["candidates"]
    timed = [lb for lb, c in cands.items() if c["role"] != EXTERNAL_ROLE]
    intro = (f"Workloads: {data['swept']} of {data['workloads']} swept ({data['settings_line']}); common "
             f"workloads (passed by {', '.join(data['common_over']) or 'none'}): {len(data['common_workloads'])}.")
    out = [f"## {name}", "", intro, "",
           md_table(["candidate", "source", "evaluated", "PASSED", "failed", "mean ms (common)", "mean ms (own)",
                     "median ms (own)", "p95 ms (own)", "speedup vs reference", "timer", "spent s"],
                    [_candidate_row(lb, c) for lb, c in cands.items()])]
    out += _measured_lines(cands, timed)
    if len(timed) > 1:
        def cell(a: str, b: str) -> str:
            return "-" if a == b else ratio_text(cands[a]["ratios"][b]["ratio"], cands[a]["ratios"][b]["workloads"])

        ratio_rows = [[a] + [cell(a, b) for b in timed] for a in timed]
        note = "Mean-latency ratio mean(column) / mean(row) over the workloads both passed (> 1: the row is faster):"
        out += ["", note, "", md_table(["row \\ column"] + timed, ratio_rows)]
    return "\n".join(out + _failures(cands) + _band_tables(data["bands"], timed))


def _minute(stamp: str) -> str:
    """``2026-12-01T22:28:15.869986+00:00`` -> ``2026-12-01 22:28``."""
    return stamp[:16].replace("T", " ")


def _measured_lines(cands: dict[str, Any], timed: list[str]) -> list[str]:
    """When each timed candidate's figures were measured (UTC, first to last workload), and a warning when the
    periods do not overlap: those candidates' ratios compare device calls, not runs side by side."""
    spans = {lb: cands[lb].get("measured") for lb in timed if cands[lb].get("measured")}
    if not spans:
        return []
    line = "Measured (UTC, first to last workload): " + "; ".join(
        f"{lb} {_minute(a)}" + (f" to {_minute(b)}" if _minute(b) != _minute(a) else "")
        for lb, (a, b) in spans.items())
    apart = len(spans) > 1 and max(a for a, _ in spans.values()) > min(b for _, b in spans.values())
    return ["", line + (". Not all in one period: ratios between those candidates compare separate runs, not "
                        "measurements side by side (`benchmarks/trace_agreement.py` gives a band's spread between "
                        "runs of the same code)." if apart else ".")]


def _failures(cands: dict[str, Any]) -> list[str]:
    """One line per candidate that failed somewhere: its first failure's verdict line (else last log line)."""
    lines = []
    for label, c in cands.items():
        if c["role"] != EXTERNAL_ROLE and c["passed"] < c["evaluated"]:
            skipped = c.get("skipped_same_shape_as_timeout") or 0
            more = (f" — and {skipped} workload(s) sharing the axes of a TIMEOUT not evaluated (they would time out too)"
                    if skipped else "")
            lines.append(f"- {label}: {failure_reason(c.get('first_error') or '') or 'no log'}{more}")
    return ["", "First failure per candidate (verdict or last log line; full tail in the JSON):", "",
            *lines] if lines else []



def header(payload: dict[str, Any]) -> list[str]:
    """Command and environment lines of the report."""
    env = payload["environment"]
    where = (f"Hardware: {env.get('hardware')} · torch {env.get('torch')} · triton {env.get('triton')} · "
             f"CUDA {env.get('cuda') or '-'} · driver {env.get('driver') or '-'} · timer "
             f"{', '.join(env.get('timers', [])) or '-'} · executor {payload['executor']} · preset "
             f"{payload['preset']} · "
             + (f"budget {payload['budget_s']:g} s per (operator, candidate)" if payload["budget_s"] is not None
                else f"figures from {payload.get('from_traces')}"))
    lines = [f"Command: `{payload['command']}`", "", where]
    if payload.get("from_traces"):
        lines += ["", "Rows of external packages (flashinfer, deep_gemm, flash_mla) record import probes of the "
                      "interpreter that rebuilt this table, not of the machine that measured the traces."]
    return lines


def markdown(payload: dict[str, Any]) -> str:
    """The whole report."""
    lines = [f"# Contest table ({payload['device_label']})", "", *header(payload), ""]
    for name, data in payload["operators"].items():
        lines += [operator_markdown(name, data), ""]
    return "\n".join(lines).rstrip()


# --------------------------------------------------------------------------- main


if __name__ == "__main__":
    usage_error("contest_report.py", "a library of benchmarks/contest.py, nothing to run: rebuild a report from saved "
                                     "traces with python benchmarks/contest.py --from-traces DIR ...")
