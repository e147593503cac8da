"""Write an operator's ``retained/`` folder from contest traces: the retained Solution, its full-sweep traces
and a generated block of figures in ``summary.md`` (hand-written text outside the block is kept).

    python benchmarks/retained_report.py --operator dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 \\
        --traces benchmarks/results/traces_contest_h200

Reads ``TRACES/<definition>/<label>.jsonl`` with ``<label>.solution.json`` beside it (the exact Solution those
traces measured; ``--solution PATH`` when the record is missing) and every other label's traces there as the
baselines. Writes ``OUT/solution.json`` (refused when another kernel is there, unless ``--replace``),
``OUT/traces.jsonl`` (the label's records, one per workload, in the definition's workload order) and the block
between the markers of ``OUT/summary.md``: command, trace folder, kernel, hardware and timer, coverage,
latency figures, speedups vs each baseline and contest.py's side-by-side tables (candidates, pairwise
ratios, bands, roofline fraction per band). Exit code 2 on bad input, before anything is written.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import command_line, fmt
from benchmarks.contest import (
    Candidate,
    UsageError,
    load_solution_for,
    read_traces,
    rel_path,
    traced_comparison,
)
from benchmarks.contest_report import EXTERNAL_ROLE, operator_markdown, ratio_text
from kernelopt.cli.paths import output_dir, output_file
from kernelopt.data import DataError, Solution, load_traces
from kernelopt.data.loader import dump_jsonl, split_unfinished
from kernelopt.data.trace import Trace
from kernelopt.operators import Operator, UnknownOperatorError, load_operator

REPO = Path(__file__).resolve().parents[1]
BEGIN = "<!-- retained_report:begin -->"
END = "<!-- retained_report:end -->"
UNRECORDED = "warm-up and iteration counts are not recorded in a trace"
HISTORY_STUB = """## History

_To write by hand (retained_report.py never edits outside its markers): what this kernel is and where it
came from (seed point, campaign, registry version and alias), what was tried and what lost, which targets
are met and which are not, and what comes next._"""


@dataclass
class Inputs:
    """Everything the folder is written from, checked before anything is written."""

    op: Operator
    folder: Path  # TRACES/<definition>
    label: str
    solution: Solution
    solution_text: str
    traces: list[Trace]  # the label's records in workload order
    candidates: list[Candidate]  # the label first, then the baselines


# --------------------------------------------------------------------------- inputs
def load_retained(folder: Path, op: Operator, label: str, override: Path | None) -> tuple[Solution, str]:
    """The Solution the label's traces measured and the text to write as ``solution.json``: the record
    ``<label>.solution.json``, or ``override`` (which must then be the same kernel when the record exists)."""
    record = folder / f"{label}.solution.json"
    if override is None and not record.is_file():
        raise UsageError(f"{record}: no solution record (the Solution its traces measured); "
                         f"pass --solution PATH")
    source = override or record
    sol = load_solution_for(source, op)
    if override is not None and record.is_file():
        was = load_solution_for(record, op)
        if was.hash() != sol.hash():
            raise UsageError(f"--solution {override}: '{sol.name}' (content hash {sol.hash()[:12]}) is not "
                             f"the kernel the traces measured, {record}: '{was.name}' ({was.hash()[:12]})")
    text = source.read_text() if source.is_file() else sol.model_dump_json(indent=1) + "\n"
    return sol, text


def ordered_traces(op: Operator, traces: list[Trace], sol: Solution, where: Path) -> list[Trace]:
    """The label's records in the definition's workload order; records of another solution, of an unknown
    workload or a second record of one workload are refused (the comparison would count them)."""
    other = sorted({str(t.solution) for t in traces if t.solution != sol.name})
    if other:
        raise UsageError(f"{where} holds traces of {other}, not only of '{sol.name}' (the solution record): "
                         "one summary never mixes two kernels")
    known = {w.uuid for w in op.workloads}
    unknown = sorted({t.workload.uuid for t in traces} - known)
    if unknown:
        raise UsageError(f"{where}: workload(s) {unknown[:3]} are not in {op.name}'s workloads.jsonl")
    by_uuid = {t.workload.uuid: t for t in traces}
    if len(by_uuid) < len(traces):
        twice = sorted({u for u in by_uuid if sum(t.workload.uuid == u for t in traces) > 1})
        raise UsageError(f"{where}: workload(s) {twice[:3]} traced more than once")
    return [by_uuid[w.uuid] for w in op.workloads if w.uuid in by_uuid]


def baseline_candidates(op: Operator, folder: Path, label: str) -> list[Candidate]:
    """Every other label with traces in ``folder``, its Solution from ``<other>.solution.json``, else from
    ``operators/<def>/solutions/baselines/<other>.json``."""
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        other = path.stem
        if other == label:
            continue
        record = folder / f"{other}.solution.json"
        if not record.is_file():
            record = op.path / "solutions" / "baselines" / f"{other}.json"
        if not record.is_file():
            raise UsageError(f"{path}: no {other}.solution.json beside it and no baseline {record}")
        out.append(Candidate(other, "baseline", rel_path(record), load_solution_for(record, op)))
    return out


def load_inputs(args: argparse.Namespace) -> Inputs:
    """Operator, the label's traces and Solution, and the baselines, or :class:`UsageError`."""
    try:
        op = load_operator(args.operator)
    except (UnknownOperatorError, DataError) as exc:
        raise UsageError(str(exc)) from None
    folder = args.traces / op.name
    path = folder / f"{args.label}.jsonl"
    if not path.is_file():
        have = sorted(p.stem for p in folder.glob("*.jsonl")) if folder.is_dir() else []
        raise UsageError(f"{path}: no traces of label '{args.label}' (labels there: {have or 'none'})")
    sol, text = load_retained(folder, op, args.label, args.solution)
    if split_unfinished(path.read_text())[1]:  # a resume repairs it; a retained folder takes a finished sweep
        raise UsageError(f"{path}: its last record was cut mid-write (the sweep did not finish): resume it "
                         "(benchmarks/contest.py --resume) first")
    traces = ordered_traces(op, read_traces(path), sol, path)
    if not traces:
        raise UsageError(f"{path}: holds no trace record")
    source = rel_path(args.solution if args.solution else folder / f"{args.label}.solution.json")
    cands = [Candidate(args.label, "retained", source, sol), *baseline_candidates(op, folder, args.label)]
    return Inputs(op, folder, args.label, sol, text, traces, cands)


def check_coverage(out: Path, traces: list[Any], replace: bool) -> None:
    """New traces covering fewer workloads than ``out/traces.jsonl`` (a partial sweep over a full one) are refused
    without ``replace``, naming how many and a few of the missing workloads."""
    path = out / "traces.jsonl"
    if replace or not path.is_file():
        return
    try:
        had = {t.workload.uuid for t in load_traces(path)}
    except DataError:
        return  # nothing readable to keep
    missing = sorted(had - {t.workload.uuid for t in traces})
    if missing:
        raise UsageError(f"the new traces cover {len(had) - len(missing)} of the {len(had)} workloads {path} holds "
                         f"(missing {', '.join(u[:8] for u in missing[:5])}{' ...' if len(missing) > 5 else ''}); "
                         "--replace writes them anyway")


def same_kernel(a: Solution, b: Solution) -> bool:
    """Equal as parsed Solutions (every field, defaults filled in: an explicit null equals an absent key)."""
    return a.model_dump(mode="json") == b.model_dump(mode="json")


def existing_solution(out: Path, sol: Solution, replace: bool) -> bool:
    """Whether ``out/solution.json`` must be written: absent, the same kernel (content hash) with other
    metadata, or another kernel and ``replace``; another kernel without ``replace`` is refused (naming both)."""
    path = out / "solution.json"
    if not path.is_file():
        return True
    try:
        was = Solution.model_validate_json(path.read_text())
    except ValueError as exc:
        if replace:
            return True
        raise UsageError(f"{path} is not a readable Solution ({str(exc)[:200]}); --replace overwrites "
                         "it") from None
    if same_kernel(was, sol):
        return False
    if was.hash() == sol.hash():  # the kernel measured, its record's metadata (description, directions) newer
        return True
    if not replace:
        raise UsageError(f"{path} holds '{was.name}' (content hash {was.hash()[:12]}), not '{sol.name}' "
                         f"({sol.hash()[:12]}) whose traces were given; --replace replaces it")
    return True


# --------------------------------------------------------------------------- the generated block
def coverage_lines(row: dict[str, Any], timer: str | None) -> list[str]:
    """Workloads PASSED / total, and warnings when the sweep is not full or not CUPTI-timed."""
    n, total, evaluated = row["passed"], row["total"], row["evaluated"]
    out = [f"- Workloads PASSED: {n} / {total}" + (" (every workload evaluated)" if evaluated == total
                                                    else f" ({evaluated} evaluated)")]
    if n < total:
        failed = ", ".join(f"{s}: {k}" for s, k in row["status_counts"].items() if s != "PASSED")
        out.append(f"- **Warning — not a full sweep: {n} of {total} workloads PASSED** "
                   f"({evaluated} evaluated{'; ' + failed if failed else ''})")
    if timer != "cupti":
        out.append(f"- **Warning — timer {timer or 'unknown'}, not cupti throughout** (the official timer; a "
                   "trace's log says `timed with cuda_event` where the harness fell back)")
    return out


def speedup_lines(label: str, rows: dict[str, Any]) -> list[str]:
    """One line per baseline: the mean-latency ratio over the workloads both passed."""
    out = []
    for other, r in rows[label]["ratios"].items():
        if rows[other]["role"] == EXTERNAL_ROLE:
            continue
        out.append(f"- speedup vs {other}: {ratio_text(r['ratio'])} (mean-latency ratio over the {r['workloads']} workloads "
                   "both passed)")
    return out


def block(inputs: Inputs, runs: dict[str, Any], data: dict[str, Any], command: str, status: str) -> str:
    """The generated part of ``summary.md``, markers included."""
    label, sol = inputs.label, inputs.solution
    row, run = data["candidates"][label], runs[label]
    env, libs = run["environment"], run["environment"].get("libs", {})
    versions = [f"{k} {libs[k]}" for k in ("torch", "triton", "cuda", "cupti") if k in libs]
    where = " · ".join([str(env.get("hardware") or "-"), *versions])
    tables = operator_markdown(inputs.op.name, data).split("\n", 1)[1].lstrip("\n")
    source = f"label `{label}`; `solution.json` is `{inputs.candidates[0].source}`, the Solution measured"
    latency = " · ".join(f"{k} {fmt(row[f'{k}_ms'])} ms" for k in ("mean", "median", "p95"))
    lines = [BEGIN, "## Figures from the traces (generated)", "",
             f"_Generated by `{command}`; edit outside the markers only: rerunning it rewrites this block._",
             "",
             f"- Status: {status}",
             f"- Source traces: `{rel_path(inputs.folder)}/` ({source})",
             f"- Kernel: `{sol.name}` (content hash {sol.hash()[:12]})",
             f"- Hardware / timer (from the traces): {where} · timer {run['timer'] or '-'} ({UNRECORDED})",
             *coverage_lines(row, run["timer"]),
             f"- Latency over its {row['passed']} PASSED workloads: {latency}",
             *speedup_lines(label, data["candidates"]), "",
             "### Side by side (every label in the trace folder)", "", tables, END]
    return "\n".join(lines)


def merge_summary(existing: str | None, generated: str, name: str, status: str) -> str:
    """``summary.md`` with ``generated`` between the markers: replaced in place; inserted after the first
    heading line of a file without markers; or a new file (title, block, History stub)."""
    if existing is None:
        title = f"# {name} — retained kernel (status: {status}, H200)"
        return f"{title}\n\n{generated}\n\n{HISTORY_STUB}\n"
    # the title's status follows the block's (a file made provisional and rerun with --status final)
    existing = re.sub(r"^(# .*\(status: )(provisional|final)(, )", rf"\g<1>{status}\g<3>", existing, count=1,
                      flags=re.M)
    begin, end = existing.find(BEGIN), existing.find(END)
    if begin >= 0 and end > begin:
        return existing[:begin] + generated + existing[end + len(END):]
    if begin >= 0 or end >= 0:
        what = "only one of" if begin < 0 or end < 0 else "misordered"
        raise UsageError(f"summary.md has {what} the markers {BEGIN} / {END}; fix them by hand")
    lines = existing.splitlines(keepends=True)
    at = next((i + 1 for i, ln in enumerate(lines) if ln.startswith("#")), 0)
    head, rest = "".join(lines[:at]), "".join(lines[at:])
    return head + ("\n" if head else "") + generated + "\n\n" + rest.lstrip("\n")


# --------------------------------------------------------------------------- main
def check_final(status: str, row: dict[str, Any], timer: str | None) -> None:
    """``--status final`` needs every workload PASSED and the CUPTI timer."""
    if status == "final" and (row["passed"] < row["total"] or timer != "cupti"):
        raise UsageError(f"--status final needs every workload PASSED with the cupti timer; have "
                         f"{row['passed']} of {row['total']}, timer {timer}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--operator", required=True, help="definition name (operators/<DEF>)")
    p.add_argument("--traces", type=Path, default=REPO / "benchmarks" / "results" / "traces_contest_h200",
                   help="contest.py --traces folder holding <DEF>/<label>.jsonl")
    p.add_argument("--label", default="retained", help="the candidate label to retain (default retained)")
    p.add_argument("--solution", type=Path, default=None,
                   help="the Solution the label's traces measured, when <label>.solution.json is missing")
    p.add_argument("--out", type=Path, default=None, help="default operators/<DEF>/retained")
    p.add_argument("--replace", action="store_true",
                   help="replace a different kernel in OUT/solution.json, or OUT/traces.jsonl with traces of fewer "
                        "workloads")
    p.add_argument("--status", default="provisional", choices=["provisional", "final"])
    a = p.parse_args(argv)
    try:
        inputs = load_inputs(a)
        out = a.out or inputs.op.path / "retained"
        for name in ("solution.json", "traces.jsonl", "summary.md"):  # every path checked before any is written
            output_file(output_dir(out, "--out") / name, "--out")
        # no external-package rows: the summary holds what the traces measured (contest tables record those probes)
        runs, data = traced_comparison(inputs.op, inputs.candidates, a.traces, {})
        check_final(a.status, data["candidates"][inputs.label], runs[inputs.label]["timer"])
        write_solution = existing_solution(out, inputs.solution, a.replace)
        check_coverage(out, inputs.traces, a.replace)
        summary = out / "summary.md"
        generated = block(inputs, runs, data, command_line("retained_report.py", argv), a.status)
        text = merge_summary(summary.read_text() if summary.is_file() else None, generated, inputs.op.name,
                             a.status)
    except (UsageError, DataError) as exc:
        print(f"retained_report.py: error: {exc}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    if write_solution:
        (out / "solution.json").write_text(inputs.solution_text)
    dump_jsonl(inputs.traces, out / "traces.jsonl")
    summary.write_text(text)
    kept = "" if write_solution else " (solution.json already held this kernel: kept)"
    print(f"wrote {rel_path(out)}/: solution.json, traces.jsonl ({len(inputs.traces)} records), "
          f"summary.md{kept}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
