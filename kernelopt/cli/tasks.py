"""Task functions behind the Hydra commands. Plain functions: tests call them without Hydra."""

from __future__ import annotations

import datetime as _dt
import json
import sys
from pathlib import Path
from typing import Any

from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kernelopt.cli import build
from kernelopt.cli.display import error_line, make_console, print_profiles, print_results
from kernelopt.cli.paths import output_file
from kernelopt.controller.workloads import select_workloads
from kernelopt.data import DataError, EvalRequest, EvalResult, Solution, dump_jsonl, load_solution
from kernelopt.data.trace import other_card
from kernelopt.executor.base import ExecutorError


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=False)


def assignments(items: list[str], where: str) -> dict[str, Any]:
    """``KEY=VALUE`` items as {KEY: VALUE}, values parsed as JSON where they parse (``BN=128`` is an int,
    ``SELECT=radix`` a string). Raises :class:`DataError` naming ``where`` for an item without ``=``."""
    import json

    out: dict[str, Any] = {}
    for item in items:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip():
            raise DataError(f"{where}: '{item}' is not KEY=VALUE")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def seed_point(text: str) -> tuple[str, dict[str, Any]]:
    """``PATH@KEY=VALUE,KEY=VALUE`` -> (PATH, {KEY: VALUE}) (see :func:`assignments`); a plain PATH gives no
    parameters."""
    path, sep, spec = text.partition("@")
    return path, (assignments(spec.split(","), f"{text} (a seed point is PATH@KEY=VALUE,KEY=VALUE)")
                  if sep else {})


def load_solution_arg(path: str, cfg: Any) -> Solution:
    """A Solution from a JSON file, a seed folder (instantiated at its defaults, or at another point of its
    space with ``FOLDER@KEY=VALUE,...``: the given parameters over the defaults) or a source folder
    holding ``solution.json`` (whose ``sources`` may be omitted: the folder's files are used)."""
    path, params = seed_point(path)
    p = Path(path)
    if params and not p.exists():
        raise DataError(f"{p}: seed folder not found (a seed point is PATH@KEY=VALUE,... with PATH a seed folder)")
    if params and not (p / "seed.json").is_file():
        raise DataError(f"{p}: '@KEY=VALUE' parameters apply to a seed folder (one with seed.json) only")
    if p.is_file():
        return load_solution(p)
    if not p.is_dir():
        raise DataError(f"{p}: solution not found (give a Solution JSON file or a folder)")
    if (p / "solution.json").is_file():
        import json

        try:
            meta = json.loads((p / "solution.json").read_text())
        except json.JSONDecodeError as exc:
            raise DataError(f"{p / 'solution.json'}:{exc.lineno}: malformed JSON: {exc.msg}") from None
        if isinstance(meta, dict) and not meta.get("sources"):
            from kernelopt.solutions import solution_from_folder

            fields = {k: v for k, v in meta.items() if k not in ("spec", "name", "definition", "author", "sources")}
            return solution_from_folder(p, meta.get("spec", {}), name=meta.get("name", p.name),
                                        definition=meta.get("definition", ""),
                                        author=meta.get("author", "kernelopt"), **fields)
        return load_solution(p / "solution.json")
    if (p / "seed.json").is_file():
        from kernelopt.generators.seeds import load_seed

        seed = load_seed(p)
        why = seed.point_problem(params)
        if why:
            raise DataError(f"{p}: seed '{seed.name}' at {params}: {why}")
        try:
            return seed.instantiate({**seed.spec.defaults, **params} if params else None)
        except ValueError as exc:
            raise DataError(str(exc)) from None
    raise DataError(f"{p}: folder holds neither solution.json nor seed.json")


def require_operator(sol: Solution, operator: str, label: str = "solution") -> Solution:
    """``sol`` when it is a solution of ``operator``; else ``DataError("<label> '<name>' is for '<def>', not
    '<operator>'")`` (evaluate, dispatch and prompt take solutions from the command line)."""
    if sol.definition != operator:
        raise DataError(f"{label} '{sol.name}' is for '{sol.definition}', not '{operator}'")
    return sol


def _traces_already_in(path: Path, definition: str, console: Console) -> list[Any]:
    """The traces ``path`` (the output file, may be missing) holds already, before this run appends to it.

    An unfinished last record (a run killed while appending) is dropped from the file, and said, so the next record
    starts on a line of its own (appended to, it glued onto the cut line and both were lost); a file that is no
    trace file, or holds traces of another definition, is refused rather than appended to."""
    from kernelopt.data import Trace
    from kernelopt.data.loader import parse_jsonl, split_unfinished

    if not path.is_file():
        return []
    text, dropped = split_unfinished(path.read_text())
    try:
        traces = parse_jsonl(Trace, text, str(path))
    except DataError as exc:
        raise DataError(f"output {exc}: not a trace file to append to (give another file: output=...)") from None
    others = sorted({t.definition for t in traces} - {definition})
    if others:
        raise DataError(f"output {path} holds traces of {', '.join(others)}, not {definition}: give another file "
                        "(output=...)")
    if dropped:
        path.write_text(text)
        console.print(f"[yellow]note:[/yellow] {escape(str(path))}: dropped an unfinished last record ({dropped} "
                      "bytes, cut mid-write)", soft_wrap=True)
    return traces


def evaluate_task(cfg: Any, console: Console | None = None) -> EvalResult:
    """Evaluate one solution on an operator's workloads; write FlashInfer Trace JSONL."""
    from kernelopt.operators import load_operator

    console = console or make_console()
    op = load_operator(cfg.operator.name)
    solution = require_operator(load_solution_arg(cfg.solution, cfg), op.name)
    on_gpu = build.gpu_available()
    settings = build.harness_settings(cfg.harness, op.name, on_gpu)
    key = "limit" if cfg.limit is not None else None if on_gpu else "operator.cpu_workload_limit"
    limit = cfg.limit if cfg.limit is not None else (None if on_gpu else cfg.operator.cpu_workload_limit)
    if limit is not None and limit < 1:  # select_workloads' own message named 'workload_limit'
        raise DataError(f"{key}={limit}: must be >= 1 (how many workloads to evaluate; null: all)")
    workloads = select_workloads(op.workloads, cfg.workloads, limit)
    out = output_file(cfg.output or Path("traces") / solution.author / op.definition.op_type / f"{op.name}.jsonl",
                      "output")
    if cfg.profile:
        output_file(cfg.profile, "profile")
    earlier = [t for t in _traces_already_in(out, op.name, console)
               if t.solution == solution.name and t.evaluation is not None]
    done = {t.workload.uuid for t in earlier}
    again = [w for w in workloads if w.uuid in done]
    if cfg.get("resume"):
        console.print(f"resume: {len(again)} of {len(workloads)} workload(s) already in "
                      f"{escape(str(out))} for '{escape(solution.name)}'; evaluating {len(workloads) - len(again)}")
        workloads = [w for w in workloads if w.uuid not in done]
    elif again:  # the default file collects every run: say when this one repeats traces already there
        console.print(f"[yellow]note:[/yellow] {len(again)} of these workload(s) already have traces of "
                      f"'{escape(solution.name)}' in {escape(str(out))}: appending again (resume=true skips "
                      "them; output=<file> writes elsewhere)", soft_wrap=True)
    results = []
    env: dict[str, Any] = {}
    profiles: dict[str, Any] = {}
    timer = build_log = None
    with build.make_executor(cfg.executor, on_gpu) as ex, _progress(console) as prog:
        task = prog.add_task(f"{solution.name} on {op.name}", total=len(workloads))
        step = max(1, getattr(ex, "num_workers", 1))
        for i in range(0, len(workloads), step):
            chunk = workloads[i:i + step]
            reqs = [EvalRequest(definition=op.definition, solution=solution, workloads=[w], settings=settings,
                                profile=bool(cfg.profile)) for w in chunk]
            for res in ex.evaluate_many(reqs):
                if cfg.get("resume") and earlier:  # checked once, on the first result: it names this machine's card
                    mismatch = other_card(earlier, (res.environment or {}).get("hardware"))
                    earlier = []
                    if mismatch:
                        raise DataError(f"resume=true: {out} holds traces of '{solution.name}' {mismatch}: give "
                                        "another file (output=...)")
                results.extend(res.results)
                profiles.update((res.profile or {}).get("workloads") or {})
                env = res.environment or env
                timer = res.timer or timer
                build_log = build_log or res.build_log
                # each workload's trace is appended as soon as it is measured: a run cut short (time limit,
                # Ctrl-C) keeps what it finished, and `resume=true` goes on from there
                stamp = _dt.datetime.now(_dt.UTC).isoformat()
                dump_jsonl(res.to_traces(op.definition, chunk, stamp), out, append=True)
            prog.advance(task, len(chunk))
    merged = EvalResult(definition=op.name, solution=solution.name, solution_hash=solution.hash(),
                        results=results, environment=env, timer=timer, build_log=build_log or "")
    print_results(merged, console)
    console.print(f"traces of {len(results)} workload(s) appended to [bold]{escape(str(out))}[/bold]")
    if cfg.profile:
        path = Path(cfg.profile)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"solution": solution.name, "definition": op.name, "workloads": profiles},
                                   indent=1, default=str))
        print_profiles(profiles, console, {r.uuid: r.latency.mean_ms for r in results if r.latency is not None})
        console.print(f"profiles of {len(profiles)} passed workload(s) written to [bold]{escape(str(path))}[/bold]")
    return merged


def _run_task(command: str, task: Any, cfg: DictConfig) -> Any:
    """Run a task; bad input (data, config, unknown names) -> one red line on stderr, ``None``."""
    try:
        return task(cfg)
    except OmegaConfBaseException as exc:  # e.g. a mandatory key not given: its first line (the rest is internals)
        key = getattr(exc, "full_key", None)
        error_line(command, DataError(str(exc).splitlines()[0] + (f" (give {key}=...)" if key else "")))
        return None
    except (DataError, ValueError, KeyError, OSError, ExecutorError) as exc:  # ExecutorError: a Ray cluster too small
        error_line(command, exc)                                              # for executor.devices, an actor lost
        return None


def evaluate_main(cfg: DictConfig) -> int:
    """Hydra entry of `kernelopt evaluate`: exit code 1 when any workload this run evaluated fails (a resumed run
    with nothing left to do exits 0), 2 on bad input."""
    result = _run_task("evaluate", evaluate_task, cfg)
    if result is None:
        return 2
    return 0 if all(r.passed for r in result.results) else 1


def optimize_main(cfg: DictConfig) -> int:
    """Hydra entry of `kernelopt optimize`: exit code 2 on bad input, 1 when the campaign ended without gating a
    single candidate (e.g. every generator request failed), 130 / 143 when Ctrl-C / SIGTERM stopped it, else 0."""
    from kernelopt.cli.optimize import optimize_task

    outcome = _run_task("optimize", optimize_task, cfg)
    if outcome is None:
        return 2
    if isinstance(outcome, int):  # interrupted (Ctrl-C, SIGTERM): 128 + the signal's number
        return outcome
    return 1 if outcome.gated == 0 else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use the `kernelopt` console script")
