"""A GDN decode band dispatch from a ``decode_copy_ceiling.py`` result: the fastest checked row at each batch size.

``benchmarks/decode_copy_ceiling.py`` times decode solutions side by side at a few batch sizes (rounds of the
official timing, each row checked against the first solution). This reads its JSON, picks at each measured batch
size the fastest of the chosen rows whose check passed (keeping the previous batch size's pick where that is within
``--min-gain``, 1 % by default, of the fastest), merges neighbouring batch sizes with the same pick into
one band (upper bound: the largest batch size of the run), adds ``--above`` for every larger batch size, and writes
the dispatch with ``kernelopt dispatch`` (the picks and the command are printed and recorded in ``--picks``, by
default ``benchmarks/results/decode_bands_<output stem>.json``, which must not exist yet)::

    python benchmarks/decode_bands.py --results benchmarks/results/decode_copy_ceiling_h200_dk.json \\
        --rows vtile_w8 lean4 lean1 lean2 --above "operators/<def>/solutions/seeds/gdn_decode_lean@OUT_FROM_OLD=0" \\
        -o operators/<def>/solutions/dispatch/picked_dk.json

A pick is only as good as the timing it came from: sweep the dispatch over all workloads (``benchmarks/contest.py``)
before keeping it. Exit 1 when a batch size has no eligible row (all failed their check, or none was measured).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import command_line, md_table, usage_error
from benchmarks.contest import rel_path
from kernelopt.cli.paths import output_file
from kernelopt.data import DataError

REPO = Path(__file__).resolve().parents[1]
OPERATOR = "gdn_decode_qk4_v8_d128_k_last"
SHAPE = ("expected decode_copy_ceiling.py's result: an object with 'solutions' (row -> solution) and 'rows' "
         "(each with batch_size, row, ms, check)")


def picks(data: dict[str, Any], rows: list[str] | None, min_gain: float = 0.0) -> list[tuple[int, str, float]]:
    """(batch size, fastest eligible row, its ms) per measured batch size, ascending. A row is eligible when it is
    one of ``rows`` (default: every solution row) and its check passed. With ``min_gain`` > 0, the previous batch
    size's pick is kept where it is eligible and within that fraction of the fastest (a tie within the timing's
    noise does not open a band)."""
    if not (isinstance(data, dict) and isinstance(data.get("solutions"), dict) and isinstance(data.get("rows"), list)):
        raise ValueError(SHAPE)
    known = data["solutions"]
    chosen = rows or list(known)
    unknown = [r for r in chosen if r not in known]
    if unknown:
        raise ValueError(f"rows {unknown} are not solution rows of the result (known: {sorted(known)})")
    times: dict[int, dict[str, float]] = {}
    if not all(isinstance(r, dict) and {"batch_size", "row"} <= r.keys() for r in data["rows"]):
        raise ValueError(SHAPE)
    for r in data["rows"]:
        if r["row"] in chosen and r.get("check") == "ok" and r.get("ms") is not None:
            times.setdefault(int(r["batch_size"]), {})[r["row"]] = float(r["ms"])
    measured = sorted({int(r["batch_size"]) for r in data["rows"]})
    missing = [b for b in measured if b not in times]
    if missing:
        raise ValueError(f"no checked row among {chosen} at batch size(s) {missing}")
    out: list[tuple[int, str, float]] = []
    for b in measured:
        row = min(times[b], key=times[b].__getitem__)
        prev = out[-1][1] if out else None
        if prev in times[b] and times[b][prev] <= times[b][row] * (1.0 + min_gain):
            row = prev
        out.append((b, row, times[b][row]))
    return out


def bands(chosen: list[tuple[int, str, float]]) -> list[tuple[str, int]]:
    """Neighbouring batch sizes with the same pick merged: (row, upper batch size) in order."""
    out: list[tuple[str, int]] = []
    for b, row, _ in chosen:
        if out and out[-1][0] == row:
            out[-1] = (row, b)
        else:
            out.append((row, b))
    return out


def dispatch_command(data: dict[str, Any], merged: list[tuple[str, int]], above: str, output: str) -> list[str]:
    """The ``kernelopt dispatch`` command line composing the bands (solutions as the result names them; a last band
    whose solution is ``above`` merges into it)."""
    if merged and data["solutions"][merged[-1][0]] == above:
        merged = merged[:-1]  # the last band runs what runs above it: one band
    cmd = [sys.executable, "-m", "kernelopt.cli.main", "dispatch", data.get("operator", OPERATOR),
           "--axis", "batch_size"]
    for row, upper in merged:
        cmd += ["--band", data["solutions"][row], "--upper", str(upper)]
    return cmd + ["--band", above, "-o", output]


def picks_record(output: Path, picks_arg: Path | None) -> Path:
    """Where the picks are recorded: ``--picks``, else ``benchmarks/results/decode_bands_<output stem>.json``, which
    must not exist yet (a committed record of another pick is not overwritten); both checked as writable files
    before any work (``-o`` too), else one line and exit 2."""
    record = picks_arg or REPO / "benchmarks" / "results" / f"decode_bands_{output.stem}.json"
    try:
        output_file(output, "-o")
        output_file(record, "--picks")
    except DataError as exc:
        usage_error("decode_bands.py", str(exc))
    if picks_arg is None and record.exists():
        usage_error("decode_bands.py", f"the picks record {record.relative_to(REPO)} exists (another pick): give "
                                       "--picks FILE to write it elsewhere, or remove it")
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, required=True, help="decode_copy_ceiling.py's JSON")
    ap.add_argument("--rows", nargs="+", default=None, help="solution rows to pick from (default: all)")
    ap.add_argument("--min-gain", type=float, default=0.01,
                    help="a new band only where its row is this fraction faster than the previous pick "
                         "(default %(default)s; 0: the fastest everywhere)")
    ap.add_argument("--above", required=True, help="solution for batch sizes above the largest measured")
    ap.add_argument("-o", "--output", type=Path, required=True, help="dispatch Solution JSON to write")
    ap.add_argument("--picks", type=Path, default=None,
                    help="where to record the picks (default benchmarks/results/decode_bands_<output stem>.json, "
                         "which must not exist yet)")
    args = ap.parse_args(argv)
    record = picks_record(args.output, args.picks)
    try:
        data = json.loads(args.results.read_text())
        chosen = picks(data, args.rows, args.min_gain)
    except (OSError, json.JSONDecodeError, KeyError, ValueError) as exc:
        print(f"decode_bands: {args.results}: {exc}", file=sys.stderr)
        return 1
    print(md_table(["batch", "pick", "us"], [[b, row, f"{ms * 1000:.2f}"] for b, row, ms in chosen]))
    # run from the repository's root (as the bands' solution paths are): -o relative to it, else absolute
    cmd = dispatch_command(data, bands(chosen), args.above, rel_path(args.output.resolve()))
    shown = shlex.join(["python", *cmd[1:]])
    print("$ " + shown)
    proc = subprocess.run(cmd, check=False, cwd=REPO)
    if proc.returncode == 0:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps({"results": rel_path(args.results.resolve()), "command": command_line("decode_bands.py", argv),
                                      "dispatch_command": shown, "picks": [
            {"batch_size": b, "row": r, "solution": data["solutions"][r], "ms": ms} for b, r, ms in chosen]},
            indent=1) + "\n")
        print(f"picks: {record}")
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
