"""Contest table: the retained kernel against every baseline of each operator, side by side, measured
in one executor run on one device with the official harness settings.

    python benchmarks/contest.py --operators gdn_decode_qk4_v8_d128_k_last gdn_prefill_qk4_v8_d128_k_last
    python benchmarks/contest.py --operators rmsnorm_h4096 --executor cpu --preset quick \\
        --solution rmsnorm_h4096=operators/rmsnorm_h4096/solutions/seeds/rmsnorm_rowwise --max-workloads 2

Candidates per operator: ``retained`` (``operators/<def>/retained/solution.json``, or a
``--solution DEF=PATH`` override: a Solution JSON, a seed folder or a folder holding
``solution.json``), every ``operators/<def>/solutions/baselines/*.json`` (reference, torch_compile,
fla...) and one row per external implementation that would serve the definition (``EXTERNAL``:
``flashinfer`` everywhere, ``deep_gemm`` for the DSA indexer, ``flash_mla`` for DSA attention) recording
whether its package imports here. With one operator, ``--candidates LABEL=PATH ...`` adds more solutions of it
(e.g. points of a seed's space, ``LABEL=FOLDER@KEY=VALUE,...``), each a row interleaved with the others::

    python benchmarks/contest.py --operators gdn_prefill_qk4_v8_d128_k_last --no-baselines \
        --solution gdn_prefill_qk4_v8_d128_k_last=$SEEDS/gdn_prefill_onelaunch \
        --candidates w8=$SEEDS/gdn_prefill_onelaunch@num_warps=8 --workloads UUID...

Workloads are taken in an order that spreads over the size range; for each workload every candidate
that still has budget left is evaluated (the candidate order rotates per workload), so all
candidates see the same workload prefix until their per-(operator, candidate) budget runs out.
Comparisons (speedups, latency ratios, per-band figures) use only workloads passed by both sides.
Results: ``benchmarks/results/contest_<device>.{json,md}`` (``contest_<name>`` with ``--name``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    Budget,
    command_line,
    device_label,
    failure_reason,
    hardware_label,
    percentile,
    results_path,
    summarize_results,
    sweep_order,
    write_results,
)
from benchmarks.contest_report import EXTERNAL_ROLE, header, markdown, operator_markdown
from kernelopt.analysis.campaign_analysis import analyse_operator, band_roofline
from kernelopt.analysis.roofline import roofline_fraction
from kernelopt.cli.build import executor_kind, gpu_available, harness_settings
from kernelopt.cli.tasks import load_solution_arg, seed_point
from kernelopt.data import DataError, EvalRequest, HarnessSettings, Solution
from kernelopt.data.loader import dump_jsonl, parse_jsonl, split_unfinished
from kernelopt.data.records import LatencyStats, WorkloadResult
from kernelopt.data.trace import EvaluationStatus, Trace, other_card
from kernelopt.executor import ExecutorError, WorkerStartError, make_executor
from kernelopt.operators import CONTEST_OPERATORS, Operator, UnknownOperatorError, load_operator
from kernelopt.solutions import SolutionFolderError

REPO = Path(__file__).resolve().parents[1]
RETAINED = "retained"
REFERENCE = "reference"


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


@dataclass
class Candidate:
    """One solution to time: its row label, role and where it came from."""

    label: str
    role: str  # "retained" | "baseline" | "candidate"
    source: str
    solution: Solution


# --------------------------------------------------------------------------- inputs
def parse_solution_overrides(items: list[str], operators: list[str]) -> dict[str, Path]:
    """``DEF=PATH`` arguments as {definition: path}; the path must exist and DEF be swept. A seed folder may
    name a point of its space: ``DEF=FOLDER@KEY=VALUE,...`` (see :func:`kernelopt.cli.tasks.seed_point`)."""
    out: dict[str, Path] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--solution {item!r}: expected DEF=PATH")
        if name not in operators:
            raise UsageError(f"--solution {item!r}: {name} is not among --operators {operators}")
        if not Path(seed_point(path)[0]).exists():
            raise UsageError(f"--solution {item!r}: {path} does not exist (give a Solution JSON, a seed "
                             f"folder or a folder holding solution.json)")
        out[name] = Path(path)
    return out


def parse_candidates(items: list[str], operators: list[str]) -> list[tuple[str, str]]:
    """``LABEL=PATH`` arguments (``--candidates``: more solutions of the one operator swept, timed beside the others,
    e.g. points of a seed's space as ``FOLDER@KEY=VALUE,...``) as [(LABEL, PATH)]. A label names its trace file:
    letters, digits, ``_``, ``-``, ``.``; distinct, and none of ``retained`` / ``reference`` (a baseline's stem is
    checked once the operator is loaded)."""
    if items and len(operators) != 1:
        raise UsageError(f"--candidates needs one operator in --operators, got {operators}")
    out: list[tuple[str, str]] = []
    for item in items:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            raise UsageError(f"--candidates {item!r}: expected LABEL=PATH")
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", label) or label in (RETAINED, REFERENCE):
            raise UsageError(f"--candidates {item!r}: the label must be letters, digits, '_', '-', '.' and not "
                             f"'{RETAINED}' or '{REFERENCE}'")
        if label in {lb for lb, _ in out}:
            raise UsageError(f"--candidates: label {label!r} given twice")
        if not Path(seed_point(path)[0]).exists():
            raise UsageError(f"--candidates {item!r}: {seed_point(path)[0]} does not exist (give a Solution JSON, a "
                             f"seed folder, FOLDER@KEY=VALUE,... or a folder holding solution.json)")
        out.append((label, path))
    return out


def rel_path(path: Path) -> str:
    """A path relative to the repository when it lies inside it."""
    try:
        return Path(path).resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def load_solution_for(path: Path, op: Operator) -> Solution:
    """The solution at ``path`` (JSON, seed folder or solution folder), checked to be for ``op``."""
    try:
        sol = load_solution_arg(str(path), None)
    except (DataError, SolutionFolderError, ValueError) as exc:
        raise UsageError(f"{path}: not a loadable solution: {exc}") from None
    if sol.definition != op.name:
        raise UsageError(f"{path}: solution '{sol.name}' is for '{sol.definition}', not '{op.name}'")
    return sol


def baseline_files(op: Operator) -> list[Path]:
    """The operator's ``solutions/baselines/*.json``, sorted (a baseline's label is its file stem)."""
    return sorted((op.path / "solutions" / "baselines").glob("*.json"))


def load_candidates(op: Operator, override: Path | None, baselines: list[str] | None,
                    with_retained: bool = True) -> list[Candidate]:
    """The retained kernel (override first, else ``retained/``; none when not ``with_retained``) and the
    operator's baselines."""
    out = []
    retained = override or (op.path / "retained" if (op.path / "retained" / "solution.json").is_file()
                            else None)
    if retained is not None and with_retained:
        out.append(Candidate(RETAINED, "retained", rel_path(retained), load_solution_for(retained, op)))
    files = baseline_files(op)
    unknown = sorted(set(baselines or []) - {f.stem for f in files})
    if unknown:
        raise UsageError(f"{op.name}: no baseline(s) {unknown}; have {[f.stem for f in files]}")
    for f in files:
        if baselines is None or f.stem in baselines:
            out.append(Candidate(f.stem, "baseline", rel_path(f), load_solution_for(f, op)))
    return out


#: External implementations the contest rows record (REFERENCE / issues 7-9): package -> (the definitions it
#: would serve, None = every one; what it provides). Each is probed by import in a child process; a package
#: that imports but has no ``solutions/baselines/<package>.json`` is noted, not timed.
EXTERNAL: dict[str, tuple[tuple[str, ...] | None, str]] = {
    "flashinfer": (None, "FlashInfer kernels"),
    "deep_gemm": (("dsa_topk_indexer_fp8_h64_d128_topk2048_ps64",),
                  "DeepGEMM fp8_paged_mqa_logits (the DSA indexer's FP8 scoring)"),
    "flash_mla": (("dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64",), "FlashMLA sparse MLA decoding"),
}


def probe_package(name: str) -> dict[str, Any]:
    """Whether ``import <name>`` works in this interpreter (checked in a child process)."""
    code = f"import {name}; print(getattr({name}, '__version__', 'unknown'))"
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"importable": False, "error": f"{name} not importable: import timed out after 300 s"}
    if proc.returncode == 0:
        return {"importable": True, "version": proc.stdout.strip().splitlines()[-1]}
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    return {"importable": False, "error": f"{name} not importable: {lines[-1] if lines else proc.returncode}"}


def probe_externals(operators: list[str], baselines: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """The import probe of every external package that serves one of ``operators``; none when no baseline is
    wanted (``--no-baselines``: the retained kernel alone, no external rows)."""
    if baselines == []:
        return {}
    return {pkg: probe_package(pkg) for pkg, (defs, _) in EXTERNAL.items()
            if defs is None or any(o in defs for o in operators)}


# --------------------------------------------------------------------------- the sweep
def _progress(op: str, i: int, n: int, c: Candidate, r: WorkloadResult, budget: Budget) -> None:
    width = 20
    done = int(width * (i + 1) / n)
    ms = f" {r.latency.mean_ms:.4f} ms" if r.latency else ""
    if r.status is not EvaluationStatus.PASSED:  # the reason on the device log too, not only in the trace
        why = failure_reason(r.log or "")
        ms = f" ({why[:200]})" if why else ""
    axes = ",".join(f"{k}={v}" for k, v in r.axes.items())
    print(f"[{op}] [{'#' * done}{'.' * (width - done)}] workload {i + 1}/{n} ({axes}) {c.label}: "
          f"{r.status.value}{ms} | {budget.spent.get(c.label, 0.0):.0f}/{budget.seconds:.0f} s",
          file=sys.stderr, flush=True)


def read_traces(path: Path, repair: bool = False) -> list[Any]:
    """The traces of one file. Its last record is unfinished when the run writing it was killed mid-write (a
    device call cut at its limit; every record ends with a newline): it is dropped with a warning, and with
    ``repair`` also from the file, so that workload is evaluated again. Any other malformed line is an error."""
    text, dropped = split_unfinished(path.read_text())
    if dropped:
        print(f"contest.py: {path}: dropped an unfinished last record ({dropped} bytes, cut mid-write)"
              + ("; its workload is evaluated again" if repair else ""), file=sys.stderr)
        if repair:
            path.write_text(text)
    try:
        return parse_jsonl(Trace, text, str(path))
    except DataError as exc:
        raise UsageError(f"{path} is not a readable trace file: {exc}") from None


def solution_record(folder: Path, op: Operator, c: Candidate) -> Path:
    """``folder/<definition>/<label>.solution.json``: the exact solution whose traces ``<label>.jsonl`` holds
    (a trace names its solution but a seed's name does not change with its code, so resuming checks content)."""
    return folder / op.name / f"{c.label}.solution.json"


def traced(folder: Path, op: Operator, c: Candidate, retry: frozenset[str] = frozenset()) -> list[Any]:
    """The traces of ``c`` that ``folder/<definition>/<label>.jsonl`` already holds; a file holding another solution
    under the same label (e.g. a retained kernel since replaced), or another version of the same one (its
    :func:`solution_record` differs), is refused, so one table never mixes two kernels under one name.
    Traces whose status is in ``retry`` are dropped from the file (rewritten without them), so those
    workloads are evaluated again."""
    path = folder / op.name / f"{c.label}.jsonl"
    if not path.is_file():
        return []
    traces = read_traces(path, repair=True)
    other = sorted({t.solution for t in traces if t.solution != c.solution.name}, key=str)
    if other:
        raise UsageError(f"--resume: {path} holds traces of {other}, not of {c.solution.name!r} "
                         f"({c.source}); resume into another --traces folder")
    record = solution_record(folder, op, c)
    if record.is_file():
        try:
            was = Solution.model_validate_json(record.read_text()).hash()
        except ValueError as exc:
            raise UsageError(f"--resume: {record} is not a readable Solution: {exc}") from None
        if was != c.solution.hash():
            raise UsageError(f"--resume: {path} holds traces of another version of {c.solution.name!r} (content "
                             f"hash {was[:12]}, now {c.solution.hash()[:12]} from {c.source}); resume into another "
                             "--traces folder, or move the old traces away")
    else:
        print(f"contest.py: {path} has no {record.name} (written before records were kept): taking its traces as "
              f"this {c.solution.name!r} and recording it now", file=sys.stderr)
    keep = [t for t in traces if t.evaluation is None or t.evaluation.status.value not in retry]
    if len(keep) < len(traces):
        dump_jsonl(keep, path)
    return keep


def shape_key(axes: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A workload's axes as a hashable key: workloads with equal keys have the same shapes."""
    return tuple(sorted(axes.items()))


def timed_out_shapes(outcomes: Any) -> set[tuple[tuple[str, Any], ...]]:
    """Shape keys of the workloads that timed out, from (axes, status) pairs (of results or of traces)."""
    return {shape_key(axes) for axes, status in outcomes if status == EvaluationStatus.TIMEOUT}


def sweep(ex: Any, op: Operator, candidates: list[Candidate], settings: HarnessSettings, order: list[Any],
          budget_s: float, traces: Path | None = None, resume: bool = False,
          retry: frozenset[str] = frozenset()) -> dict[str, dict[str, Any]]:
    """Evaluate the candidates interleaved over ``order``; per label: results, timer, environment, spent.
    With ``traces``, each candidate's FlashInfer Trace JSONL goes to ``traces/<definition>/<label>.jsonl``
    (appended workload by workload, so an interrupted sweep keeps what it measured); with ``resume`` too,
    existing trace files are kept and the (candidate, workload) pairs they already hold are skipped, so
    several bounded runs (e.g. device calls) add up to one full sweep; traced pairs whose status is in
    ``retry`` are evaluated again (their old traces removed). A resumed file measured on other hardware than the
    first new result is refused before anything is appended (a GPU call answered by another card: one table, one
    card; the parent never initialises CUDA, so the card is read from the first result). After a candidate timed out on a workload, its
    other workloads of the same axes (same shapes) are skipped: they would time out again (e.g. torch.compile
    of the GDN decode reference compiles for over 300 s at batch 64, and 8 workloads have batch 64);
    :func:`compare` counts them per candidate."""
    budget = Budget(budget_s)
    runs: dict[str, dict[str, Any]] = {c.label: {"results": [], "timer": None, "environment": {}}
                                       for c in candidates}
    done: dict[str, set[str]] = {c.label: set() for c in candidates}
    timed_out: dict[str, set[Any]] = {c.label: set() for c in candidates}
    kept_on: dict[str, list[Any]] = {}  # resumed traces per label, until the first new result's card is checked
    timers: dict[str, set[str]] = {c.label: set() for c in candidates}  # every timer that ran (CUPTI falls back
    # to CUDA events on calls over cupti_max_call_ms), not just the last request's
    if traces is not None:
        for c in candidates:
            (traces / op.name).mkdir(parents=True, exist_ok=True)
            if resume:
                kept = traced(traces, op, c, retry)
                kept_on[c.label] = kept
                done[c.label] = {t.workload.uuid for t in kept}
                timed_out[c.label] = timed_out_shapes((t.workload.axes, t.evaluation.status)
                                                      for t in kept if t.evaluation)
            else:
                (traces / op.name / f"{c.label}.jsonl").write_text("")
            solution_record(traces, op, c).write_text(c.solution.model_dump_json(indent=1) + "\n")
    for i, w in enumerate(order):
        k = i % len(candidates)
        live = [c for c in candidates[k:] + candidates[:k]
                if budget.left(c.label) and w.uuid not in done[c.label]
                and shape_key(w.axes) not in timed_out[c.label]]
        if not any(budget.left(c.label) for c in candidates):
            break
        for c in live:
            t = time.perf_counter()
            res = ex.evaluate(EvalRequest(definition=op.definition, solution=c.solution, workloads=[w],
                                          settings=settings))
            budget.charge(c.label, time.perf_counter() - t)
            kept = kept_on.pop(c.label, [])
            mismatch = other_card(kept, (res.environment or {}).get("hardware"))
            if mismatch:
                raise UsageError(f"--resume: {traces / op.name / f'{c.label}.jsonl'} holds traces {mismatch}: "
                                 "resume into another --traces folder (one table never mixes hardware)")
            run = runs[c.label]
            run["results"].extend(res.results)
            timers[c.label] |= {r.latency.timer for r in res.results if r.latency} or {res.timer} - {None}
            run["timer"] = "+".join(sorted(timers[c.label])) or None
            run["environment"] = res.environment or run["environment"]
            timed_out[c.label] |= timed_out_shapes((r.axes, r.status) for r in res.results)
            for r in res.results:
                _progress(op.name, i, len(order), c, r, budget)
            stamp = _dt.datetime.now(_dt.UTC).isoformat()
            run["measured"] = [run.get("measured", [stamp])[0], stamp]
            if traces is not None:
                dump_jsonl(res.to_traces(op.definition, [w], stamp), traces / op.name / f"{c.label}.jsonl",
                           append=True)
    for label, run in runs.items():
        run["spent_s"] = round(budget.spent.get(label, 0.0), 1)
    return runs


def runs_from_traces(op: Operator, candidates: list[Candidate], folder: Path) -> dict[str, dict[str, Any]]:
    """The ``sweep`` structure rebuilt from ``folder/<definition>/<label>.jsonl`` trace files written by an
    earlier ``--traces`` run (an interrupted run's figures can still be compared). A trace does not
    record the timer: it is read from the harness log (``timed with cuda_event``), else ``cupti`` where
    the environment lists CUDA and cupti, ``cuda_event`` where it lists CUDA alone, else ``cpu_wall``."""
    runs: dict[str, dict[str, Any]] = {}
    for c in candidates:
        path = folder / op.name / f"{c.label}.jsonl"
        traces = read_traces(path) if path.is_file() else []
        results, timers = [], set()
        for t in traces:
            ev = t.evaluation
            libs = ev.environment.libs if ev.environment else {}
            hw = ev.environment.hardware.lower() if ev.environment else ""
            gpu = "cuda" in libs and "nvidia" in hw  # a GPU evaluation records the GPU's name as hardware
            timer = ("cuda_event" if "timed with cuda_event" in (ev.log or "")
                     else "cupti" if gpu and "cupti" in libs else "cuda_event" if gpu else "cpu_wall")
            lat = None
            if ev.performance is not None and ev.performance.latency_ms is not None:
                ms = float(ev.performance.latency_ms)
                lat = LatencyStats(mean_ms=ms, trial_medians_ms=[ms], timer=timer)
                timers.add(timer)
            corr = ev.correctness
            results.append(WorkloadResult(
                uuid=t.workload.uuid, axes=dict(t.workload.axes), status=ev.status, latency=lat,
                max_abs_error=corr.max_absolute_error if corr else None,
                max_rel_error=corr.max_relative_error if corr else None, log=ev.log or ""))
        first = traces[0].evaluation.environment if traces else None
        env = {"hardware": first.hardware, "libs": dict(first.libs)} if first else {}
        stamps = sorted(t.evaluation.timestamp for t in traces if t.evaluation.timestamp)
        runs[c.label] = {"results": results, "timer": "+".join(sorted(timers)) or None, "environment": env,
                         "spent_s": None, "source_traces": rel_path(path),
                         "measured": [stamps[0], stamps[-1]] if stamps else None}
    return runs


# --------------------------------------------------------------------------- comparisons
def passed_latencies(results: list[WorkloadResult]) -> dict[str, float]:
    """UUID -> mean ms of the PASSED workloads."""
    return {r.uuid: r.latency.mean_ms for r in results if r.passed and r.latency is not None}


def common_workloads(lat: dict[str, dict[str, float]], order: list[str]) -> tuple[list[str], list[str]]:
    """Workloads passed by every candidate that passed any (in sweep order), and those candidates."""
    over = [label for label, m in lat.items() if m]
    return [u for u in order if over and all(u in lat[label] for label in over)], over


def mean_speedup(ref: dict[str, float], cand: dict[str, float]) -> tuple[float | None, int]:
    """Mean per-workload speedup ref/cand over the workloads both passed, and their count."""
    both = [u for u in cand if u in ref]
    if not both:
        return None, 0
    return statistics.fmean(ref[u] / cand[u] for u in both), len(both)


def mean_ratio(a: dict[str, float], b: dict[str, float]) -> tuple[float | None, int]:
    """``mean(b) / mean(a)`` over the workloads both passed (> 1: ``a`` is faster), and their count."""
    both = [u for u in a if u in b]
    if not both:
        return None, 0
    return statistics.fmean(b[u] for u in both) / statistics.fmean(a[u] for u in both), len(both)


def band_roof(uuids: list[str], bounds: dict[str, dict[str, Any]], lat: dict[str, float],
              ceilings: dict[str, Any] | None) -> dict[str, Any]:
    """Roofline figures of one candidate over the workloads of a band it passed: summed bound and
    measured time (:func:`band_roofline`), their fraction, and the achieved bytes/s and FLOP/s."""
    bound, measured, limiter = band_roofline(uuids, bounds, lat)
    if measured is None:
        return {"n": 0}
    seconds = measured / 1e3
    used = [u for u in uuids if u in lat and u in bounds]
    return {"n": len([u for u in uuids if u in lat]), "measured_ms": measured, "bound_ms": bound,
            "limiter": limiter, "fraction": roofline_fraction(measured, bound) if bound is not None else None,
            "achieved_bytes_per_s": sum(bounds[u]["bytes"] for u in used) / seconds if used else None,
            "achieved_flops_per_s": sum(bounds[u]["flops"] for u in used) / seconds if used else None}


def band_breakdown(op: Operator, lat: dict[str, dict[str, float]], common: list[str],
                   hardware: str | None) -> dict[str, Any]:
    """Bands of the operator's workloads (shape discovery, roofline-bytes proxy) and, per band, each
    candidate's mean latency over the band's common workloads (where the band has none, over the band's
    workloads it passed itself, counted in ``own_n``) and its roofline figures over the band's workloads it
    passed (a roofline fraction is absolute, so it needs no common set)."""
    analysis = analyse_operator(op.definition, op.workloads, op.path, None, hardware)
    bounds, ceilings = analysis["workloads"], analysis["ceilings"]
    bands = []
    for band in analysis["bands"]["bands"]:
        uuids = [u for u in common if u in set(band["workloads"])]
        per = {label: {"mean_ms": statistics.fmean(m[u] for u in uuids) if uuids else None,
                       "roofline": band_roof(band["workloads"], bounds, m, ceilings)}
               for label, m in lat.items() if m}
        if not uuids:  # no workload of the band passed by every candidate: each one's own passes, counted
            for label, row in per.items():
                own = [lat[label][u] for u in band["workloads"] if u in lat[label]]
                row.update(mean_ms=statistics.fmean(own) if own else None, own_n=len(own))
        bands.append({"name": band["name"], "axis": band["axis"], "low": band["low"], "high": band["high"],
                      "workloads": len(band["workloads"]), "common": len(uuids), "candidates": per})
    return {"band_axis": analysis["bands"]["band_axis"], "cost_source": analysis["bands"]["cost_source"],
            "ceilings": ceilings["device"] if ceilings else None, "notes": analysis["notes"], "bands": bands}


def external_rows(definition: str, probes: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One row per probed external package that serves ``definition``: the probe's outcome instead of
    numbers."""
    rows = {}
    for pkg, probe in probes.items():
        defs, what = EXTERNAL.get(pkg, (None, pkg))
        if defs is not None and definition not in defs:
            continue
        note = (f"{pkg} {probe['version']} importable ({what}); no {pkg}-backed solution in solutions/baselines "
                f"(add {pkg}.json there to time it)" if probe["importable"] else f"{probe['error']} ({what})")
        rows[pkg] = {"role": EXTERNAL_ROLE, "package": pkg, **probe, "note": note}
    return rows


def compare(op: Operator, candidates: list[Candidate], runs: dict[str, dict[str, Any]],
            order: list[str], probes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per-candidate summaries, speedups vs reference, pairwise ratios, the external packages' rows
    (``probes``: package -> import probe) and the band breakdown."""
    lat = {c.label: passed_latencies(runs[c.label]["results"]) for c in candidates}
    common, over = common_workloads(lat, order)
    ref = lat.get(REFERENCE, {})
    rows: dict[str, Any] = {}
    for c in candidates:
        m = lat[c.label]
        on_common = [m[u] for u in common] if m else []
        results = runs[c.label]["results"]
        seen, slow = {r.uuid for r in results}, timed_out_shapes((r.axes, r.status) for r in results)
        speed, n_speed = mean_speedup(ref, m)
        rows[c.label] = {
            "role": c.role, "source": c.source, "solution": c.solution.name, "solution_hash": c.solution.hash(),
            "timer": runs[c.label]["timer"], "spent_s": runs[c.label]["spent_s"],
            "measured": runs[c.label].get("measured"),
            **summarize_results(runs[c.label]["results"], len(op.workloads)),
            "common_mean_ms": statistics.fmean(on_common) if on_common else None,
            "common_median_ms": statistics.median(on_common) if on_common else None,
            "common_p95_ms": percentile(on_common, 95),
            "speedup_vs_reference": speed, "speedup_workloads": n_speed,
            "skipped_same_shape_as_timeout": sum(w.uuid not in seen and shape_key(w.axes) in slow
                                                 for w in op.workloads),
            "ratios": {o.label: dict(zip(("ratio", "workloads"), mean_ratio(m, lat[o.label]), strict=True))
                       for o in candidates if o.label != c.label}}
    for pkg, row in external_rows(op.name, probes).items():
        rows.setdefault(pkg, row)
    hardware = next((runs[c.label]["environment"].get("hardware") for c in candidates
                     if runs[c.label]["environment"]), None)
    return {"candidates": rows, "common_workloads": common, "common_over": over,
            "bands": band_breakdown(op, lat, common, hardware)}


def environment_of(runs: dict[str, dict[str, dict[str, Any]]], kind: str) -> dict[str, Any]:
    """GPU/CPU name, library versions and timers as the workers reported them."""
    envs = [r["environment"] for op in runs.values() for r in op.values() if r["environment"]]
    env = envs[0] if envs else {}
    libs = env.get("libs", {})
    timers = sorted({r["timer"] for op in runs.values() for r in op.values() if r["timer"]})
    return {"hardware": env.get("hardware"), "device": env.get("device"), "driver": env.get("driver"),
            "gpu": env.get("gpu"), "torch": libs.get("torch"), "triton": libs.get("triton"),
            "cuda": libs.get("cuda"), "cupti": libs.get("cupti"), "python": libs.get("python"),
            "timers": timers, "executor": kind}


def _settings_line(s: HarnessSettings, preset: str) -> str:
    return (f"{preset}: warmup {s.warmup}, iterations {s.iterations}, trials {s.trials}, "
            f"atol {s.atol:g}, rtol {s.rtol:g}")


def wanted_of(args: argparse.Namespace) -> set[str] | None:
    """``--workloads`` as a set (``None``: every workload)."""
    return None if args.workloads is None else set(args.workloads)


def ordered(op: Operator, max_workloads: int | None = None, wanted: set[str] | None = None) -> list[Any]:
    """The operator's workloads cut to ``wanted`` (``--workloads``), then to the smallest ``max_workloads``, in
    sweep order."""
    return sweep_order([w for w in op.workloads if wanted is None or w.uuid in wanted], max_workloads)


def selected(op: Operator, args: argparse.Namespace) -> list[Any]:
    """``ordered`` with the command line's ``--workloads`` and ``--max-workloads``."""
    return ordered(op, args.max_workloads, wanted_of(args))


def check_workloads(args: argparse.Namespace, ops: dict[str, Operator]) -> None:
    """Every ``--workloads`` UUID names a workload of a selected operator, and each operator gets one."""
    wanted = wanted_of(args)
    if wanted is None:
        return
    known = {w.uuid: name for name, op in ops.items() for w in op.workloads}
    unknown = sorted(wanted - set(known))
    if unknown:
        raise UsageError(f"--workloads: {unknown} name no workload of {sorted(ops)}")
    empty = sorted(name for name in ops if name not in {known[u] for u in wanted})
    if empty:
        raise UsageError(f"--workloads names none of the workloads of {empty} (drop it from --operators)")


def prepare(args: argparse.Namespace) -> tuple[dict[str, Operator], dict[str, list[Candidate]]]:
    """Every operator and its candidates, checked before any work starts."""
    overrides = parse_solution_overrides(args.solution, args.operators)
    extra = parse_candidates(args.candidates, args.operators)
    ops, cands = {}, {}
    for name in args.operators:
        try:
            ops[name] = load_operator(name)
        except (UnknownOperatorError, DataError) as exc:
            raise UsageError(str(exc)) from None
        cands[name] = load_candidates(ops[name], overrides.get(name), args.baselines, not args.no_retained)
        taken = {c.label for c in cands[name]} | {f.stem for f in baseline_files(ops[name])}
        for label, path in extra:
            if label in taken:
                raise UsageError(f"--candidates: label {label!r} is taken by a baseline or the retained kernel")
            cands[name].append(Candidate(label, "candidate", path, load_solution_for(Path(path), ops[name])))
        if not cands[name]:
            raise UsageError(f"{name}: no candidates (no retained kernel and no baseline selected)")
    check_workloads(args, ops)
    return ops, cands


def run(args: argparse.Namespace, kind: str, payload: dict[str, Any], save: Any) -> None:
    """Sweep every operator's candidates on one executor lane, compare, and ``save(payload)`` after
    each operator (so an interrupted run keeps the operators it finished)."""
    ops, cands = prepare(args)
    if args.from_traces is not None:
        rebuild(args, ops, cands, payload, save)
        return
    payload["external"] = probes = probe_externals(list(ops), args.baselines)
    for pkg, probe in probes.items():
        print(f"{pkg}: {probe.get('version') or probe.get('error')}", file=sys.stderr)
    all_runs: dict[str, dict[str, dict[str, Any]]] = {}
    with make_executor(kind, devices=None if kind == "cpu" else [0]) as ex:
        for name, op in ops.items():
            settings = harness_settings({"preset": args.preset}, name, kind != "cpu").model_copy(
                update={"time_reference": False})
            order = selected(op, args)
            all_runs[name] = runs = sweep(ex, op, cands[name], settings, order, args.budget_s, args.traces,
                                          args.resume, frozenset(args.retry))
            if args.resume:  # the table covers every traced workload, this run's and earlier runs'
                all_runs[name] = runs = runs_from_traces(op, cands[name], args.traces)
            payload["operators"][name] = {
                "workloads": len(op.workloads), "swept": len(order), "settings": settings.model_dump(),
                "settings_line": _settings_line(settings, args.preset),
                **compare(op, cands[name], runs, [w.uuid for w in order], probes)}
            payload["environment"] = environment_of(all_runs, kind)
            save(payload)
            print(operator_markdown(name, payload["operators"][name]) + "\n", flush=True)


def traced_comparison(op: Operator, candidates: list[Candidate], folder: Path, probes: dict[str, dict[str, Any]],
                      max_workloads: int | None = None, wanted: set[str] | None = None,
                      ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """One operator's runs rebuilt from ``folder/<definition>/<label>.jsonl`` (:func:`runs_from_traces`) and
    their comparison (:func:`compare`) with the coverage fields :func:`operator_markdown` reads."""
    runs = runs_from_traces(op, candidates, folder)
    order = [w.uuid for w in ordered(op, max_workloads, wanted)]
    evaluated = {r.uuid for run in runs.values() for r in run["results"]}
    return runs, {"workloads": len(op.workloads), "swept": len(evaluated), "settings": None,
                  "settings_line": f"figures read from traces in {rel_path(folder / op.name)}",
                  **compare(op, candidates, runs, order, probes)}


def rebuild(args: argparse.Namespace, ops: dict[str, Operator], cands: dict[str, list[Candidate]],
            payload: dict[str, Any], save: Any) -> None:
    """``--from-traces``: the comparison from saved traces, no evaluation (the external rows keep the
    probes of this interpreter)."""
    payload["external"] = probes = probe_externals(list(ops), args.baselines)
    payload.update(from_traces=rel_path(args.from_traces), executor="none (figures from saved traces)",
                   preset="as recorded in the traces", budget_s=None)
    all_runs = {}
    for name, op in ops.items():
        all_runs[name], payload["operators"][name] = traced_comparison(
            op, cands[name], args.from_traces, probes, args.max_workloads, wanted_of(args))
        payload["environment"] = environment_of(all_runs, payload["executor"])
        if payload["environment"].get("hardware"):  # the title names the traces' GPU, not this machine
            payload["device_label"] = hardware_label(payload["environment"]["hardware"])
        save(payload)
        print(operator_markdown(name, payload["operators"][name]) + "\n", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--operators", nargs="+", default=list(CONTEST_OPERATORS))
    p.add_argument("--solution", nargs="*", default=[], metavar="DEF=PATH",
                   help="retained-kernel override: a Solution JSON, seed folder or solution folder")
    p.add_argument("--candidates", nargs="*", default=[], metavar="LABEL=PATH",
                   help="more solutions of the one operator swept, each a row beside the retained kernel and the "
                        "baselines, interleaved per workload (e.g. seed points: LABEL=FOLDER@KEY=VALUE,...)")
    p.add_argument("--baselines", nargs="*", default=None,
                   help="baseline names (file stems); default all (their traces in a --resume folder are reused)")
    p.add_argument("--no-baselines", action="store_true",
                   help="the retained kernel only (the same as --baselines with no names)")
    p.add_argument("--no-retained", action="store_true",
                   help="baselines only (e.g. to split one operator's candidates over two GPUs, each "
                        "resuming its own labels in one --traces folder)")
    p.add_argument("--budget-s", type=float, default=90.0, help="seconds per (operator, candidate)")
    p.add_argument("--max-workloads", type=int, default=None,
                   help="at most N workloads per operator (the smallest N)")
    p.add_argument("--workloads", nargs="*", default=None, metavar="UUID",
                   help="only these workloads (each operator must hold at least one of them)")
    p.add_argument("--preset", default="official", choices=["official", "quick"])
    p.add_argument("--executor", default="auto", choices=["auto", "local", "isolated", "cpu"],
                   help="auto: local on a GPU, else cpu")
    p.add_argument("--name", default=None, help="results file stem: contest_<name> (default: the device)")
    p.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    p.add_argument("--from-traces", type=Path, default=None, metavar="DIR",
                   help="evaluate nothing: rebuild the comparison from DIR/<definition>/<label>.jsonl traces")
    p.add_argument("--traces", type=Path, default=None,
                   help="also write each candidate's FlashInfer Trace JSONL under DIR/<definition>/<label>.jsonl")
    p.add_argument("--resume", action="store_true",
                   help="with --traces: keep the trace files there and skip the (candidate, workload) pairs "
                        "they already hold; the table then covers every traced workload")
    p.add_argument("--retry", nargs="*", default=[], metavar="STATUS",
                   help="with --resume: evaluate again the traced pairs with these statuses (e.g. REJECTED after "
                        "a harness fix)")
    a = p.parse_args(argv)
    label = device_label()
    stem = f"contest_{a.name or label}"
    results_path(stem, a.out, "contest.py")
    payload: dict[str, Any] = {"command": command_line("contest.py", argv), "device_label": label,
                               "preset": a.preset, "executor": a.executor, "budget_s": a.budget_s,
                               "max_workloads": a.max_workloads,
                               "external": {}, "environment": {}, "operators": {}}
    written: list[Path] = []

    def save(data: dict[str, Any]) -> None:
        written[:] = [write_results(stem, data, markdown(data), a.out)]

    try:
        if a.no_baselines and a.baselines:
            raise UsageError(f"--no-baselines and --baselines {' '.join(a.baselines)}: choose one")
        if a.no_baselines:
            a.baselines = []
        if a.retry and not a.resume:
            raise UsageError("--retry needs --resume (it re-evaluates traced pairs)")
        if a.resume and a.traces is None:
            raise UsageError("--resume needs --traces DIR (the trace files to resume from)")
        if a.max_workloads is not None and a.max_workloads < 1:
            raise UsageError(f"--max-workloads must be >= 1, got {a.max_workloads}")
        try:
            payload["executor"] = kind = executor_kind({"kind": a.executor}, gpu_available())
        except ValueError as exc:
            raise UsageError(f"--executor {a.executor}: {exc}") from None
        run(a, kind, payload, save)
    except UsageError as exc:
        print(f"contest.py: error: {exc}", file=sys.stderr)
        return 2
    except (ExecutorError, WorkerStartError) as exc:
        print(f"contest.py: error: executor {payload['executor']}: {exc}", file=sys.stderr)
        return 1
    print("\n".join(header(payload)))
    if written:
        print(f"wrote {written[0]} and {written[0].with_suffix('.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
