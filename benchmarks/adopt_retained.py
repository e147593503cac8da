"""Adopt a new retained kernel for one operator from a finished contest sweep, and rebuild what depends on it.

    python benchmarks/adopt_retained.py --operator gdn_prefill_qk4_v8_d128_k_last \\
        --from benchmarks/results/profiles_v/contest_scratch_bf \\
        --solution operators/gdn_prefill_qk4_v8_d128_k_last/solutions/dispatch/recurrent_wy3f_wy3p_2284.json \\
        --tag wy3f_bv64_401_2026-12-01 --why "wy3p on the long band: 0.14 vs 0.15 ms (call BF)"

``--from DIR`` holds ``DIR/<definition>/retained.jsonl`` and ``retained.solution.json``: a contest sweep of the new
kernel (``contest.py --solution DEF=PATH --traces DIR --resume``). Checked before anything is written (exit 2
with the reason otherwise): the traced Solution is the one at ``--solution`` (same content hash), every workload
of the definition has a trace and the last trace of each is ``PASSED``, and the superseded name is free. Then:

1. ``TRACES/<definition>/retained.*`` move to ``TRACES/<definition>/superseded/retained_<tag>.*`` and the new
   traces take their place; ``superseded/README.md`` gets a paragraph (the old kernel, ``--why`` and, per band,
   the old and the new mean latency: the plan prints them too);
2. ``scripts/contest_resume.sh`` resumes the new kernel (its ``S=$D=...`` for the definition);
3. the tables built from ``TRACES`` are rebuilt with their own recorded commands, the old solution path
   replaced by the new one: every ``benchmarks/results/*.json`` whose ``command`` runs ``contest.py
   --from-traces TRACES`` with ``--solution <definition>=...`` (``contest_<op>_h200_resumed``,
   ``contest_all_h200``), every ``benchmarks/results/headroom_*.md`` whose ``Command:`` line reads this
   definition's retained traces, ``benchmarks/paper_comparison.py`` as recorded in ``paper_comparison*.json`` when it
   reads ``TRACES`` (every definition's retained traces against the paper's Table 3; added 2026-12-07, when the
   prefill adoption left it at the old kernel's figure), and ``benchmarks/retained_report.py --operator <definition>
   --replace`` (``operators/<definition>/retained/``; hand-written history outside its markers is kept).

``--with-baseline fla`` (repeatable) also replaces that baseline's traces by its sweep in ``--from`` (the same
Solution as the one in place, all PASSED), the old ones moved to ``superseded/fla_<tag>.*`` with a paragraph, so
the retained-vs-baseline ratio in the tables stays a ratio measured side by side in one call.
A sweep measured on another card than the traces it joins (the kernel it supersedes, the baselines kept) is
refused unless ``--other-hardware``. ``--dry-run`` prints the plan and writes nothing; ``--no-rebuild`` stops
after steps 1-2.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import shlex
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.contest import UsageError, load_solution_for, read_traces, rel_path
from benchmarks.dispatch_plan import passed
from benchmarks.trace_agreement import agreement
from kernelopt.data import DataError, Solution, load_solution
from kernelopt.data.trace import measured_on, measured_on_other_hardware
from kernelopt.operators import UnknownOperatorError, load_operator

REPO = Path(__file__).resolve().parents[1]
TRACES = REPO / "benchmarks" / "results" / "traces_contest_h200"
RESUME = REPO / "scripts" / "contest_resume.sh"
RESULTS = REPO / "benchmarks" / "results"
LABEL = "retained"


def check_sweep(definition: str, folder: Path, solution: Path | Solution,
                label: str = LABEL) -> tuple[Path, Path, int]:
    """``(traces file, solution record, workloads)`` of a finished, all-PASSED sweep of ``solution`` (a path as
    given to contest.py, or the Solution itself) under ``label`` in ``folder``."""
    try:
        op = load_operator(definition)
    except UnknownOperatorError as exc:
        raise UsageError(str(exc)) from None
    traces, record = folder / definition / f"{label}.jsonl", folder / definition / f"{label}.solution.json"
    for f in (traces, record):
        if not f.is_file():
            raise UsageError(f"{f}: not found (a contest sweep with --traces {rel_path(folder)} writes it)")
    try:
        traced = load_solution(record)
    except DataError as exc:
        raise UsageError(f"{record}: {exc}") from None
    wanted = solution if isinstance(solution, Solution) else load_solution_for(solution, op)
    if traced.hash() != wanted.hash():
        raise UsageError(f"{record}: the traces measured '{traced.name}' ({traced.hash()[:12]}), not "
                         f"{solution if isinstance(solution, Path) else 'the ' + label + ' in place'} "
                         f"('{wanted.name}', {wanted.hash()[:12]})")
    last = {t.workload.uuid: t for t in read_traces(traces)}  # a resumed sweep: the last trace of a workload
    uuids = [w.uuid for w in op.workloads]
    missing = [u for u in uuids if u not in last]
    failed = [f"{u[:8]} {last[u].evaluation.status.value}" for u in uuids
              if u in last and last[u].evaluation.status.value != "PASSED"]
    if missing or failed:
        raise UsageError(f"{traces}: not a full passing sweep: {len(missing)} of {len(uuids)} workloads missing"
                         + (f", not PASSED: {', '.join(failed[:8])}" if failed else ""))
    return traces, record, len(uuids)


def check_hardware(new: Path, here: Path, replaced: set[str]) -> None:
    """The new sweep was measured on the card of the traces it joins: the kernel it supersedes and the baselines
    kept beside it (``here/<label>.jsonl``, those in ``replaced`` left out: their new sweeps come from the same call).
    A device call answered by another card (an H100 for an H200, 2026-12-06) would otherwise turn every ratio of
    the table into a comparison of two cards."""
    mine = measured_on(read_traces(new))
    if len(mine) != 1:
        raise UsageError(f"{new}: measured on {', '.join(mine) or 'no card'}: a sweep of one card is expected")
    for f in sorted(here.glob("*.jsonl")):
        other = [] if f.stem in replaced else measured_on_other_hardware(read_traces(f), mine[0])
        if other:
            raise UsageError(f"{new}: measured on {mine[0]}, but {f.name} beside it on "
                             f"{', '.join(sorted(other))}: the table would compare cards (sweep on that card, or "
                             "--other-hardware to adopt anyway)")


def resume_line(text: str, definition: str, where: Path = RESUME) -> re.Match[str]:
    """The ``S=$D=<path>`` assignment of ``definition``'s line in contest_resume.sh."""
    for m in re.finditer(r"D=(\S+?); S=\$D=(\S+?);;", text):
        if m.group(1) == definition:
            return m
    raise UsageError(f"{where}: no line resumes {definition} (expected 'D={definition}; S=$D=<path>;;')")


def with_solution(command: str, definition: str, new: str) -> str | None:
    """``command`` with its ``--solution`` path for ``definition`` replaced by ``new`` (``None``: it names none)."""
    words = shlex.split(command)
    hit = False
    for i, w in enumerate(words):
        if w.startswith(f"{definition}=") and i and any(words[j] == "--solution" for j in range(i)):
            words[i], hit = f"{definition}={new}", True
    return shlex.join(words) if hit else None


def _reads_traces(command: str, traces_root: Path) -> bool:
    """Whether a recorded ``paper_comparison.py`` command reads ``traces_root`` (no ``--traces``: its default, ours)."""
    if "--traces" in command:
        return f"--traces {rel_path(traces_root)}" in command
    return Path(traces_root).resolve() == TRACES.resolve()


def rebuild_commands(definition: str, traces_root: Path, new: str) -> list[str]:
    """The recorded commands of the tables built from ``traces_root`` that involve ``definition``'s retained
    kernel, with its path replaced by ``new``."""
    root = rel_path(traces_root)
    out, papers = [], []
    for f in sorted(RESULTS.glob("*.json")):
        try:
            data = json.loads(f.read_text())
            command = data.get("command")
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            continue
        if not isinstance(command, str):
            continue
        if "contest.py" in command and f"--from-traces {root}" in command:
            changed = with_solution(command, definition, new)
            if changed:
                out.append(changed)
        elif "paper_comparison.py" in command and _reads_traces(command, traces_root) and any(
                isinstance(r, dict) and r.get("definition") == definition for r in data.get("rows") or []):
            papers.append(command)  # the paper's table: every definition's retained traces
    ours = f"--ours {root}/{definition}/{LABEL}.jsonl"
    for f in sorted(RESULTS.glob("headroom_*.md")):
        m = re.search(r"^Command: `(.+)`$", f.read_text(), re.MULTILINE)
        if m and "headroom.py" in m.group(1) and ours in m.group(1):
            out.append(m.group(1))
    out += papers
    out.append(f"python benchmarks/retained_report.py --operator {definition} --traces {root} --replace")
    return out


def band_lines(definition: str, old: Path, new: Path) -> list[str]:
    """Per band of the definition (the contest table's), the old and the new traces' mean latency over the
    workloads both passed and their ratio (new / old; per workload min-max): where the change comes from. The
    two sweeps ran in separate device calls: on a band where the two kernels run the same code the ratio is the
    calls' spread (``benchmarks/trace_agreement.py``)."""
    r = agreement(definition, old, new)
    return [f"{b['band']} ({b['workloads']}): {b['a_ms']:.4f} -> {b['b_ms']:.4f} ms, new / old "
            f"{b['ratio_of_means']:.3f} (per workload {b['ratio_min']:.3f}-{b['ratio_max']:.3f})" for b in r["bands"]]


def superseded_note(old: Path, tag: str, why: str, bands: list[str]) -> str:
    """The paragraph ``superseded/README.md`` gets for the traces moved there."""
    try:
        sol = load_solution(old.with_suffix(".solution.json"))
        kernel = f"`{sol.name}` (content hash {sol.hash()[:12]})"
    except (DataError, OSError):
        kernel = "the previous retained kernel"
    passed = sum(1 for t in read_traces(old) if t.evaluation.status.value == "PASSED")
    return (f"`{LABEL}_{tag}.jsonl`: {kernel}, the retained kernel until {_dt.date.today().isoformat()} "
            f"({passed} PASSED traces; its Solution in `{LABEL}_{tag}.solution.json`). {why.strip()} "
            f"Per band, this kernel -> its successor: {'; '.join(bands)}.\n")


@dataclass
class Baseline:
    """A baseline's traces in place (``current``), their superseded name (``gone``) and the new sweep's (``new``)."""

    label: str
    current: Path
    gone: Path
    new: Path

    def note(self, source: Path) -> str:
        """The paragraph ``superseded/README.md`` gets for the baseline's old traces (before they are moved)."""
        old_ms, new_ms = mean_passed_ms(self.current), mean_passed_ms(self.new)
        return (f"`{self.gone.name}`: {self.label}'s traces (the same Solution; {old_ms:.5f} ms mean over its PASSED "
                f"workloads), replaced on {_dt.date.today().isoformat()} by its sweep in `{rel_path(source)}` "
                f"({new_ms:.5f} ms), side by side with the new retained kernel, so the retained-vs-{self.label} "
                "ratio stays a same-call one.\n")


def mean_passed_ms(traces: Path) -> float:
    """Mean latency (ms) over a trace file's PASSED workloads (``dispatch_plan.passed``: the last record of each)."""
    ms = passed(traces)[0]
    return statistics.fmean(ms.values()) if ms else float("nan")


def check_baseline(definition: str, source: Path, here: Path, label: str, tag: str) -> Baseline:
    """A baseline whose traces in ``here`` the sweep in ``source`` replaces: the same Solution, all PASSED."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", label) or label == LABEL:
        raise UsageError(f"--with-baseline {label!r}: a baseline's label (e.g. fla), not {LABEL!r}")
    current = here / f"{label}.jsonl"
    try:
        in_place = load_solution(current.with_suffix(".solution.json"))
    except (DataError, OSError) as exc:
        raise UsageError(f"{current.with_suffix('.solution.json')}: no {label} baseline in place ({exc})") from None
    new, _, _ = check_sweep(definition, source, in_place, label)
    gone = here / "superseded" / f"{label}_{tag}.jsonl"
    if gone.exists() or gone.with_suffix(".solution.json").exists():
        raise UsageError(f"{gone}: exists already (pick another --tag)")
    return Baseline(label, current, gone, new)


def check_new_kernel(solution: Path, new_record: Path, old_record: Path, same_kernel: bool) -> None:
    """``--solution`` lies in the repository (the resume script and the rebuilt tables name it for others to run)
    and, unless ``same_kernel``, is not the kernel already retained (a swap of identical kernels: every band
    1.000)."""
    if Path(rel_path(solution)).is_absolute():
        raise UsageError(f"--solution {solution}: outside the repository; scripts/contest_resume.sh and the rebuilt "
                         "tables would name a path no one else has (copy it under operators/<definition>/solutions/)")
    if same_kernel or not old_record.is_file():
        return
    try:
        old = load_solution(old_record)
    except DataError:
        return  # an unreadable record is superseded like any other
    if old.hash() == load_solution(new_record).hash():
        raise UsageError(f"{new_record}: the sweep measured the kernel already retained ('{old.name}', "
                         f"{old.hash()[:12]}): nothing new to adopt (--same-kernel adopts a new sweep of it)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--operator", required=True, help="definition name")
    p.add_argument("--from", dest="source", type=Path, required=True, help="the new kernel's contest trace folder")
    p.add_argument("--solution", type=Path, required=True, help="the new kernel (as given to contest.py)")
    p.add_argument("--tag", required=True, help="name of the superseded copy: superseded/retained_<tag>.*")
    p.add_argument("--why", required=True, help="why the new kernel replaces the old (for superseded/README.md)")
    p.add_argument("--traces", type=Path, default=TRACES, help="the contest trace folder (default %(default)s)")
    p.add_argument("--resume-script", type=Path, default=RESUME, help="default %(default)s")
    p.add_argument("--with-baseline", action="append", default=[], metavar="LABEL",
                   help="also replace this baseline's traces (e.g. fla) by its sweep in --from, side by side with "
                        "the new kernel (the same Solution as the one in place), so their ratio stays a same-call "
                        "one; the old ones go to superseded/LABEL_<tag>.* (repeatable)")
    p.add_argument("--same-kernel", action="store_true",
                   help="adopt a new sweep of the kernel already retained (refused otherwise: nothing new to adopt)")
    p.add_argument("--other-hardware", action="store_true",
                   help="adopt a sweep measured on another card than the traces it joins (refused otherwise)")
    p.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    p.add_argument("--no-rebuild", action="store_true", help="swap the traces and the resume line only")
    args = p.parse_args(argv)
    try:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", args.tag):
            raise UsageError(f"--tag {args.tag!r}: letters, digits, '_', '.', '-' only")
        new_traces, new_record, n = check_sweep(args.operator, args.source, args.solution)
        here = args.traces / args.operator
        old_traces, old_record = here / f"{LABEL}.jsonl", here / f"{LABEL}.solution.json"
        gone = here / "superseded" / f"{LABEL}_{args.tag}.jsonl"
        if gone.exists() or gone.with_suffix(".solution.json").exists():
            raise UsageError(f"{gone}: exists already (pick another --tag)")
        if not old_traces.is_file():
            raise UsageError(f"{old_traces}: no retained traces to supersede")
        check_new_kernel(args.solution, new_record, old_record, args.same_kernel)
        if not args.other_hardware:
            check_hardware(new_traces, here, set(args.with_baseline))
        try:
            text = args.resume_script.read_text()
        except OSError as exc:
            raise UsageError(f"--resume-script: {exc}") from None
        line = resume_line(text, args.operator, args.resume_script)
        new_path = rel_path(args.solution)
        commands = [] if args.no_rebuild else rebuild_commands(args.operator, args.traces, new_path)
        bands = band_lines(args.operator, old_traces, new_traces)
        baselines = [check_baseline(args.operator, args.source, here, label, args.tag)
                     for label in args.with_baseline]
    except UsageError as exc:
        print(f"adopt_retained.py: {exc}", file=sys.stderr)
        return 2
    plan = [f"{rel_path(old_traces)} -> {rel_path(gone)} (and its .solution.json)",
            f"{rel_path(new_traces)} -> {rel_path(old_traces)} ({n} workloads, all PASSED)",
            f"{rel_path(args.resume_script)}: {args.operator} resumes {new_path} (was {line.group(2)})",
            *(f"per band, old -> new: {b}" for b in bands),
            *(f"{rel_path(b.current)} -> {rel_path(b.gone)}; {rel_path(b.new)} -> {rel_path(b.current)} "
              f"(the same Solution, swept beside the new kernel)" for b in baselines),
            *(f"run: {c}" for c in commands)]
    print("\n".join(plan))
    if args.dry_run:
        return 0
    gone.parent.mkdir(exist_ok=True)
    note = superseded_note(old_traces, args.tag, args.why, bands)
    shutil.move(old_traces, gone)
    shutil.move(old_record, gone.with_suffix(".solution.json"))
    shutil.copyfile(new_traces, old_traces)
    shutil.copyfile(new_record, old_record)
    for b in baselines:
        note += "\n" + b.note(args.source)
        shutil.move(b.current, b.gone)
        shutil.move(b.current.with_suffix(".solution.json"), b.gone.with_suffix(".solution.json"))
        shutil.copyfile(b.new, b.current)
        shutil.copyfile(b.new.with_suffix(".solution.json"), b.current.with_suffix(".solution.json"))
    readme = gone.parent / "README.md"
    head = readme.read_text() if readme.is_file() else f"# Superseded {args.operator} traces\n"
    readme.write_text(head.rstrip("\n") + "\n\n" + note)
    in_script = new_path.replace(f"operators/{args.operator}/", "operators/$D/", 1)  # as the script's other lines
    args.resume_script.write_text(text[:line.start(2)] + in_script + text[line.end(2):])
    for c in commands:
        print(f"$ {c}", flush=True)
        words = shlex.split(c)
        argv_ = [sys.executable, *words[1:]] if words[0] == "python" else words
        rc = subprocess.run(argv_, cwd=REPO, check=False).returncode
        if rc != 0:
            print(f"adopt_retained.py: exit {rc} from: {c}; the traces are swapped, rerun it by hand",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
