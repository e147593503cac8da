"""Shared helpers for benchmark scripts: output folder, device label, markdown tables, the command
line, budgeted workload sweeps, per-candidate latency summaries and command-line checks (one line, exit 2)."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from kernelopt.data import DataError
from kernelopt.data.trace import EvaluationStatus

RESULTS = Path(__file__).resolve().parent / "results"


def hardware_label(name: str | None) -> str:
    """'h200' for any H200's name, else the name in lower case with '_' for spaces; 'cpu' for none."""
    name = (name or "").lower()
    return "h200" if "h200" in name else name.replace(" ", "_") or "cpu"


def device_label() -> str:
    """'h200', 'cpu', ... for file names: this machine's first GPU."""
    try:
        import torch

        if torch.cuda.is_available():
            return hardware_label(torch.cuda.get_device_name(0))
    except Exception:  # noqa: BLE001
        pass
    return "cpu"


def stamp() -> dict[str, Any]:
    """When and where a figure was measured."""
    info: dict[str, Any] = {"date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                            "host": platform.node(), "python": platform.python_version()}
    try:
        import torch

        info["torch"] = torch.__version__
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001
        pass
    return info


def stamps_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The stamps of every ``--mode measure`` run that wrote the table (older tables: their one ``stamp``)."""
    return list(data.get("stamps") or ([data["stamp"]] if data.get("stamp") else []))


def measure_runs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The stamps of every ``--mode measure`` run that measured the table's points: its own and those of the tables
    it took points from (``from_tables``, each recorded with its own such list)."""
    return stamps_of(data) + [st for f in data.get("from_tables", []) for st in f.get("stamps", [])]


def measured_when(meta: dict[str, Any]) -> str:
    """When a table's points were measured: one date, or the first and last of its measure runs with their count."""
    dates = sorted({st.get("date", "?") for st in measure_runs(meta)})
    if len(dates) <= 1:
        return dates[0] if dates else "?"
    return f"{dates[0]} to {dates[-1]} ({len(dates)} measure runs on this card)"


def _cell(value: Any) -> str:
    return str(value).replace("\n", " ").replace("|", "\\|")


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def fmt(x: float | None, spec: str = ".4f") -> str:
    """A number for a table cell ("-" when unknown)."""
    return "-" if x is None else format(x, spec)


def cuda_median_ms(fn: Any, warmup: int = 3, repeats: int = 20) -> float:
    """Median time (ms) of one call of ``fn`` between CUDA events, warm caches: the harness's ``time_callable`` with
    the ``cuda_event`` timer (so a short kernel's figure includes the host's launch time)."""
    from kernelopt.harness.timing import median_call_ms

    return median_call_ms(fn, warmup, repeats)


def cupti_median_ms(fn: Any, warmup: int = 3, repeats: int = 20) -> float:
    """Median device time (ms) of one call of ``fn`` as the official timing measures it: the harness's
    ``time_callable`` with the CUPTI timer (L2 flushed before each call, synchronized around it, the span from the
    call's first kernel start to its last kernel end), so the host's launch time is not in it."""
    from kernelopt.harness.timing import median_call_ms

    return median_call_ms(fn, warmup, repeats, timer="cupti", flush_l2=True)


TIMER_WORDS = {"cupti": "CUPTI device time, L2 flushed before each call, as the official timing",
               "cuda_event": "CUDA events around each call, warm caches: includes the host's launch time"}


def call_timer(dev: str, timer: str = "cupti") -> Any:
    """``timer(fn, warmup, iters)`` -> median ms of one call. On a GPU ``cupti`` (:func:`cupti_median_ms`: device
    time only, as the official timing) or ``cuda_event`` (:func:`cuda_median_ms`: events around the call, so a short
    kernel's figure includes the host's launch time); elsewhere the host clock (the Triton interpreter: plumbing
    only, the times mean nothing)."""
    def host(fn: Any, warmup: int, iters: int) -> float:
        times = []
        for _ in range(max(iters, 1)):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)

    if dev != "cuda":
        return host
    return {"cupti": cupti_median_ms, "cuda_event": cuda_median_ms}[timer]


def add_sweep_options(parser: Any) -> None:
    """The options every kernel sweep shares: ``--warmup``, ``--iters`` (launches timed), ``--name`` (results file
    suffix) and ``--out`` (results folder)."""
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--timer", choices=("cupti", "cuda_event"), default="cupti",
                        help="GPU timer: cupti (device time, L2 flushed, as the official timing; default) or "
                             "cuda_event (events around each call: includes the host's launch time)")
    parser.add_argument("--name", default=None, help="results file suffix")
    parser.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")


def sweep_attempt(row: dict[str, Any], rows: list[dict[str, Any]], fn: Any, *fn_args: Any) -> Any:
    """``fn(*fn_args)`` for one configuration of a kernel sweep, or ``None`` once its exception is recorded:
    ``row`` gets ``error`` (type and first line), is appended to ``rows`` and printed. An out-of-resource
    configuration is a row of the sweep, not the end of it."""
    try:
        return fn(*fn_args)
    except Exception as exc:  # noqa: BLE001
        row["error"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
        rows.append(row)
        print(f"  {row}", file=sys.stderr)
        return None


def sweep_results(script: str, args: Any) -> Path:
    """A kernel sweep's ``<out>/<script stem>_<device>[_<name>].json``, checked by :func:`results_path` (one line,
    exit 2): sweeps call it right after parsing their arguments, before measuring anything."""
    stem = f"{Path(script).stem}_{device_label()}" + (f"_{args.name}" if args.name else "")
    return results_path(stem, args.out, script)


def write_sweep(script: str, argv: Sequence[str] | None, args: Any, data: dict[str, Any], markdown: Any) -> Path:
    """Write a kernel sweep's ``<script stem>_<device>[_<name>].{json,md}`` (``markdown(data, command)`` makes the
    table), say where on stderr, return the JSON path."""
    cmd = command_line(script, argv)
    path = write_results(sweep_results(script, args).stem, {"command": cmd, **data}, markdown(data, cmd), args.out)
    print(f"wrote {path} and {path.with_suffix('.md')}", file=sys.stderr)
    return path


def command_line(script: str, argv: Sequence[str] | None = None) -> str:
    """The command that produced a result file, e.g. ``python benchmarks/baselines.py --budget-s 60``."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python", f"benchmarks/{script}", shlex.join(args)]).rstrip()


def usage_error(script: str, message: str) -> NoReturn:
    """Stop a script on bad input: ``<script>: error: <message>`` on stderr, exit status 2 (as argparse does)."""
    print(f"{script}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def positive_int(text: str) -> int:
    """An argparse ``type=`` for counts (``--budget``, ``--seeds``): an integer >= 1, else argparse's one-line
    error and exit status 2."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: must be at least 1")
    return value


def load_operator_arg(script: str, name: str) -> Any:
    """The operator ``--operator name`` names; an unknown one (or a broken definition) is one line naming
    ``script`` and exit status 2 (:func:`usage_error`), not a traceback."""
    from kernelopt.operators import UnknownOperatorError, load_operator

    try:
        return load_operator(name)
    except (UnknownOperatorError, DataError) as exc:
        usage_error(script, str(exc))


def load_space_table(path: Path, script: str) -> dict[str, Any]:
    """A latency table of ``controller_efficiency.py --mode measure`` (parsed), checked for the keys its readers
    use; anything else (a missing file, a folder, malformed JSON, a results file) is one line
    ``--table <path>: not a --mode measure table: <why>`` and exit status 2 (:func:`usage_error`)."""
    def bad(why: str) -> NoReturn:
        usage_error(script, f"--table {path}: not a --mode measure table: {why}")

    if not Path(path).is_file():
        bad("is a folder" if Path(path).is_dir() else "no such file")
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as exc:
        bad(str(exc))
    except json.JSONDecodeError as exc:
        bad(f"malformed JSON ({exc})")
    if not isinstance(data, dict):
        bad(f"a JSON {type(data).__name__}, not an object")
    shapes = {"operator": str, "workloads": list, "latency_ms": dict}
    missing = [k for k, t in shapes.items() if not isinstance(data.get(k), t)]
    if missing:
        bad(f"no {', '.join(missing)} (has {sorted(data) or 'no keys'})")
    if not data["latency_ms"] or not all(isinstance(row, dict) for row in data["latency_ms"].values()):
        bad("latency_ms holds no point's per-workload latencies")
    return data


def results_path(name: str, out_dir: Path | None = None, script: str = "") -> Path:
    """``<out_dir>/<name>.json`` (default folder ``results/``), checked before any work: ``name`` a file name (no
    folder in it), the folder one this command may write or make, the ``.json`` and ``.md`` not folders; else one
    line naming ``script`` and exit status 2 (:func:`usage_error`)."""
    from kernelopt.cli.paths import output_dir, output_file

    folder = Path(out_dir) if out_dir is not None else RESULTS
    try:
        if not name or Path(name).name != name or name in (".", ".."):
            raise DataError(f"--name {name}: a file name stem, not a path")
        output_dir(folder, "--out")
        for suffix in (".json", ".md"):
            output_file(folder / f"{name}{suffix}", "results file")
    except DataError as exc:
        usage_error(script or Path(sys.argv[0]).name, str(exc))
    return folder / f"{name}.json"


def write_results(name: str, payload: dict[str, Any], markdown: str | None = None,
                  out_dir: Path | None = None) -> Path:
    """Write ``<out_dir>/<name>.json`` (and ``.md``; default folder ``results/``); return the JSON path. Paths
    :func:`results_path` refuses stop the script (one line, exit 2) before anything is written."""
    path = results_path(name, out_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"measured": stamp(), **payload}, indent=2))
    if markdown is not None:
        path.with_suffix(".md").write_text(markdown + "\n")
    return path


def spread_order(items: list[Any], key) -> list[Any]:  # type: ignore[no-untyped-def]
    """Order items so that any prefix covers the range of ``key`` evenly (for budgeted sweeps)."""
    srt = sorted(items, key=key)
    out, seen = [], set()
    step = len(srt)
    while len(out) < len(srt) and step >= 1:
        for i in range(0, len(srt), step):
            if i not in seen:
                seen.add(i)
                out.append(srt[i])
        step //= 2
    return out


def workloads_by_prefix(op: Any, prefixes: Sequence[str], script: str) -> list[Any]:
    """The workloads of ``op`` whose UUIDs start with ``prefixes``, in that order; each prefix must match exactly
    one (else :func:`usage_error`: one line naming ``script``, exit 2)."""
    out = []
    for p in prefixes:
        hits = [w for w in op.workloads if w.uuid.startswith(p)]
        if len(hits) != 1:
            usage_error(script, f"{p!r} matches {len(hits)} workloads of {op.name} (needs exactly one)")
        out.append(hits[0])
    return out


def sweep_order(workloads: list[Any], limit: int | None = None) -> list[Any]:
    """Workloads of a budgeted sweep: at most ``limit`` of them (the smallest first, as a campaign's
    workload limit does), ordered so that any prefix spreads over the size range."""
    from kernelopt.controller.workloads import select_workloads, workload_size

    return spread_order(select_workloads(workloads, None, limit), workload_size)


class Budget:
    """Seconds spent per key (e.g. per (operator, baseline)) against one allowance per key."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spent: dict[str, float] = {}

    def left(self, key: str) -> bool:
        """True while ``key`` has not used up its allowance."""
        return self.spent.get(key, 0.0) <= self.seconds

    def charge(self, key: str, seconds: float) -> None:
        """Book ``seconds`` of work on ``key``."""
        self.spent[key] = self.spent.get(key, 0.0) + seconds


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100, linear interpolation) of ``values``; None when empty."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summarize_results(done: Sequence[Any], total: int) -> dict[str, Any]:
    """Coverage, statuses and per-workload latency figures of one candidate's
    :class:`~kernelopt.data.records.WorkloadResult` list (``total``: workloads of the operator)."""
    passed = [r for r in done if r.passed]
    lat = [r.latency.mean_ms for r in passed]
    counts: dict[str, int] = {}
    for r in done:
        counts[r.status.value] = counts.get(r.status.value, 0) + 1
    return {"evaluated": len(done), "total": total, "passed": len(passed),
            "statuses": sorted(counts), "status_counts": dict(sorted(counts.items())),
            "mean_ms": statistics.fmean(lat) if lat else None,
            "median_ms": statistics.median(lat) if lat else None,
            "p95_ms": percentile(lat, 95),
            "per_workload": {r.uuid: (r.latency.mean_ms if r.latency else r.status.value) for r in done},
            "first_error": next((failure_log(r) for r in done if not r.passed), None)}


def verdict_line(log: str) -> str | None:
    """The harness's last verdict line of a log (``REJECTED: ...``, ``TIMEOUT: ...``; a status name and a
    colon), or ``None``."""
    names = {s.value for s in EvaluationStatus}
    hits = [ln.strip() for ln in log.splitlines() if ln.strip().split(":", 1)[0] in names and ":" in ln]
    return hits[-1] if hits else None


def failure_reason(log: str) -> str:
    """One line saying why a result failed: its verdict line, else its last non-empty log line ("" if none)."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    return verdict_line(log) or (lines[-1] if lines else "")


def failure_log(r: Any) -> str:
    """A failed result's log tail (600 characters), its verdict line first when the tail cut it off (a
    library's warnings printed after the verdict, e.g. torch.compile's)."""
    tail = (r.log or "")[-600:]
    verdict = verdict_line(r.log or "")
    return f"{verdict}\n{tail}" if verdict and verdict not in tail else tail


def operator_and_solution(script: str, operator: str, solution: str) -> tuple[Any, Any]:
    """The operator (an unknown one: :func:`load_operator_arg`'s one line, exit 2) and the solution argument
    (Solution JSON, seed folder or ``FOLDER@KEY=VALUE,...``) of a GPU benchmark's command line."""
    from kernelopt.cli.tasks import load_solution_arg

    return load_operator_arg(script, operator), load_solution_arg(solution, None)


def seed_module(seeds: Path, seed: str, name: str = "kernel") -> Any:
    """Module ``name`` of the seed folder ``seeds/seed``, imported as a package (a seed's files import each other
    relatively: ``from .wy3b import ...``), with ``seeds`` put on ``sys.path`` once."""
    import importlib

    if str(seeds) not in sys.path:
        sys.path.insert(0, str(seeds))
    return importlib.import_module(f"{seed}.{name}")


def int_fields(text: str, fields: str) -> tuple[int, ...]:
    """``text`` as the comma-separated integers ``fields`` names (e.g. ``"C,BV,num_warps"``), for argparse ``type=``:
    anything else is an ``ArgumentTypeError`` naming the expected fields."""
    n = len(fields.split(","))
    try:
        values = tuple(int(p) for p in text.split(","))
    except ValueError:
        values = ()
    if len(values) != n:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {fields} ({n} integers)")
    return values


def interpreted(script: str, why: str) -> bool:
    """True, after one line on stderr (``<script>: unset TRITON_INTERPRET (<why>)``), when the Triton interpreter is on:
    for the scripts that compile for sm_90 or need the real compiler, where it would give nothing (they exit 2)."""
    if os.environ.get("TRITON_INTERPRET", "0") != "1":
        return False
    print(f"{script}: unset TRITON_INTERPRET ({why})", file=sys.stderr)
    return True


def compile_sm90(fn: Any, types: list[str], constexprs: dict[str, Any], **options: Any) -> Any:
    """``fn`` compiled by ``triton.compile`` for sm_90 on this machine (no GPU needed): its leading arguments of
    ``types`` (e.g. ``*bf16``, ``i32``), the rest ``constexprs``; ``options`` e.g. ``num_warps``, ``num_stages``."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sig = dict(zip(fn.arg_names, types + ["constexpr"] * (len(fn.arg_names) - len(types))))
    return triton.compile(ASTSource(fn, sig, constexprs=constexprs), target=GPUTarget("cuda", 90, 32), options=options)


def cubin_tool(kernel: Any, tool: str, *args: str) -> str:
    """The output of one of Triton's own CUDA tools (``cuobjdump``, ``nvdisasm``; no GPU needed) run with ``args`` on
    the cubin of a kernel compiled by ``triton.compile``."""
    import subprocess
    import tempfile

    import triton

    tools = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
        cubin.write(kernel.asm["cubin"])
        cubin.flush()
        return subprocess.run([str(tools / tool), *args, cubin.name], capture_output=True, text=True,
                              check=True).stdout


def compiled_resources(kernel: Any) -> dict[str, Any]:
    """Registers per thread and the spill stack (``cuobjdump -res-usage`` of the cubin, with Triton's own tools: no GPU
    needed), spill stores and loads (``STL`` / ``LDL`` in the SASS, ``nvdisasm``), wgmma instruction shapes and count,
    and the ``wgmma.wait_group`` counts in order, of a kernel compiled by ``triton.compile`` for a CUDA target.

    Spills are ptxas's, so they are read from the cubin: until 2026-12-06 this counted ``st.local`` in the PTX (which
    has none: ptxas spills after it) and reported 0 for a kernel ptxas spilled 976 bytes a thread for (the one-launch GDN
    prefill kernel at its dispatched point)."""
    import re

    usage = cubin_tool(kernel, "cuobjdump", "-res-usage")
    sass = cubin_tool(kernel, "nvdisasm", "-c")
    regs = re.search(r"REG:(\d+)", usage)
    stack = re.search(r"STACK:(\d+)", usage)
    ptx = kernel.asm["ptx"]
    return {"registers": int(regs.group(1)) if regs else None, "stack_bytes": int(stack.group(1)) if stack else None,
            "spill_stores": len(re.findall(r"\bSTL(?:\.\w+)*\s", sass)),
            "spill_loads": len(re.findall(r"\bLDL(?:\.\w+)*\s", sass)),
            "wgmma": sorted(set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx))),
            "wgmma_instructions": ptx.count("wgmma.mma_async"),
            "wait_group": [int(n) for n in re.findall(r"wgmma\.wait_group\.sync\.aligned\s+(\d+)", ptx)]}
