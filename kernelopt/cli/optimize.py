"""`kernelopt optimize`: compose objects from config, run a campaign with a live display, report."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kernelopt.cli import build
from kernelopt.cli.display import make_console, speedup_text
from kernelopt.cli.interrupts import exit_status, signal_name, sigterm_interrupts


def campaign_config(cfg: Any, on_gpu: bool):  # type: ignore[no-untyped-def]
    """Map the composed Hydra config onto a ``CampaignConfig``."""
    from kernelopt.analysis.failures import load_failure_table
    from kernelopt.campaign import CampaignConfig
    from kernelopt.cli.tasks import load_solution_arg
    from kernelopt.controller import Budget, Rules
    from kernelopt.data import build_model

    c = cfg.controller
    names = {str(k): f"controller.{k}" for k in c}  # a refused value is named by the key the user typed
    names |= {"gate_size": "operator.gate_size", "workload_limit": "operator.cpu_workload_limit",
              "workloads": "operator.workloads", "seed": "campaign.seed", "name": "campaign.name"}
    budget = build_model(Budget, names, max_candidates=c.max_candidates, max_rounds=c.max_rounds,
                         wall_clock_s=c.wall_clock_s, patience=c.patience, candidates_per_round=c.candidates_per_round)
    rules = build_model(Rules, names, gate_size=cfg.operator.gate_size, finalists=c.finalists, repeats=c.repeats,
                        noise_floor_default=c.noise_floor_default, min_improvement=c.min_improvement,
                        p95_tolerance=c.p95_tolerance, probe_candidates=c.probe_candidates,
                        defer_lost_after=c.defer_lost_after, dispatch_objective=c.dispatch_objective,
                        band_gate_with_representatives=c.band_gate_with_representatives,
                        surrogate=c.surrogate, surrogate_ls=c.surrogate_ls, surrogate_kappa=c.surrogate_kappa,
                        surrogate_turns=c.surrogate_turns, repair_directions=load_failure_table())
    mode = cfg.agent.mode.value if hasattr(cfg.agent.mode, "value") else str(cfg.agent.mode)
    limit = None if on_gpu else cfg.operator.cpu_workload_limit
    record = OmegaConf.to_container(cfg, resolve=True, enum_to_str=True)
    wanted = list(cfg.operator.workloads) if cfg.operator.workloads else None
    if cfg.operator.workload_sample:
        from kernelopt.controller.workloads import representative, select_workloads
        from kernelopt.operators import load_operator

        # on the CPU the sample is spread over the smallest `cpu_workload_limit` workloads (the interpreter
        # times out on the large ones: GDN decode batch 32/64 took > 300 s a workload); null lifts the limit
        pool = select_workloads(load_operator(cfg.operator.name).workloads, wanted, limit)
        wanted = [w.uuid for w in representative(pool, int(cfg.operator.workload_sample))]
    return build_model(
        CampaignConfig, names, operator=cfg.operator.name,
        harness=build.harness_settings(cfg.harness, cfg.operator.name, on_gpu),
        budget=budget, rules=rules, mode=mode, resume=cfg.campaign.resume, seed=cfg.campaign.seed,
        workloads=wanted, workload_limit=limit, profile_bands=bool(c.profile_bands),
        measure_ceilings=bool(c.measure_ceilings), name=cfg.campaign.name,
        reuse_across_campaigns=bool(cfg.campaign.reuse_across_campaigns),
        tags={"device": "gpu" if on_gpu else "cpu-interpreter"}, record={"hydra": record},
        include=[load_solution_arg(str(p), cfg) for p in cfg.campaign.include or []])


def _row(info: dict[str, Any]) -> str:
    """The stage and solution columns of a candidate's line (the solution's name as text, not markup)."""
    return f"{info['stage']:<6} {escape(info['solution']):<40}"


class LiveDisplay:
    """Turns campaign progress events into a rich progress bar and log lines."""

    def __init__(self, console: Console, max_candidates: int) -> None:
        self.console = console
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=console)
        # the bar is the controller's candidate budget: distinct solutions gated (the decisions' ``counts`` row,
        # so a resumed campaign starts where it was); sweeps and repeats show in the description only
        self.task = self.progress.add_task("candidates", total=max_candidates)
        self.max_candidates = max_candidates
        self.started = False  # the bar shows from the campaign's start (a refused config draws none)
        self.run_id: str | None = None  # the campaign run, once started (an interrupted one names it)

    def close(self) -> None:
        """Stop the bar (its last state stays on screen) if the campaign started."""
        if self.started:
            self.progress.stop()
            self.started = False

    def __call__(self, event: str, **info: Any) -> None:
        c = self.progress.console
        if event == "campaign_started":
            self.run_id = info["run_id"]
            if not self.started:
                self.progress.start()
                self.started = True
            verb = "resumed" if info.get("resumed") else "started"
            c.print(f"campaign [bold]{info['run_id']}[/bold] {verb} on {escape(info['operator'])} "
                    f"({info['workloads']} workload{'s' if info['workloads'] != 1 else ''})")
        elif event == "decision":
            d = info["decision"]
            c.print(f"[cyan]decide[/cyan] {d.action}: {escape(d.reason)}", soft_wrap=True)  # whole, for grep
            gated = next((e.value for e in d.evidence if e.kind == "counts"), None)
            if gated is not None:
                self.progress.update(self.task, completed=min(int(gated), self.max_candidates))
        elif event == "evaluating":
            self.progress.update(self.task,
                                 description=escape(f"{info['stage']}: {', '.join(info['solutions'])[:60]}"))
        elif event == "evaluated":
            res = info["result"]
            mean = res.mean_latency_ms()
            lat = f"{mean:.4f} ms" if mean is not None else "-"
            colour = "green" if res.all_passed else "red"
            why = res.failure_line(160)
            c.print(f"  {_row(info)} "
                    f"[{colour}]{res.pass_count}/{len(res.results)} PASSED[/{colour}] mean {lat}"
                    + (f" [red]{escape(why)}[/red]" if why else ""))
        elif event == "reused":
            c.print(f"  [dim]{_row(info)} reused: run {info['source']} of an "
                    f"earlier campaign (adopted as {info['run_id']})[/dim]")
        elif event == "skipped":
            c.print(f"  [dim]{_row(info)} already evaluated in this campaign "
                    f"(run {info['existing']})[/dim]")
        elif event == "over_count":
            c.print(f"  [yellow]not gated: {escape(', '.join(info['solutions']))} (the round gates {info['count']} "
                    "candidate(s); the baseline round's size is controller.max_candidates)[/yellow]", soft_wrap=True)
        elif event == "duplicate":
            c.print(f"  [dim]{_row(info)} proposed twice in one round: "
                    f"evaluated once[/dim]")
        elif event == "promoted":
            c.print(f"[bold green]promoted[/bold green] run {info['run_id']} as version {info['version']}")
        elif event == "profiled":
            classes = ", ".join(f"{b}: {k}" for b, k in info["classes"].items()) or "no profile metrics"
            c.print(f"[cyan]profiled[/cyan] the baseline per band ({escape(classes)})")
        elif event == "campaign_finished":
            gated = info["outcome"].gated
            self.progress.update(self.task, description="candidates", completed=min(gated, self.max_candidates))
        elif event == "profile_failed":
            c.print(f"[yellow]band profiling failed[/yellow] ({escape(info['reason'][:200])}); roofline classes kept")
        elif event == "proposal_failed":  # a generator's request or reply that gave no candidate: why
            c.print(f"  [yellow]no candidate from the generator:[/yellow] {escape(str(info['reason'])[:300])}",
                    soft_wrap=True)
        elif event == "measuring_ceilings":
            c.print(f"[cyan]measuring[/cyan] the ceilings of {escape(info['device'])} once (copy bandwidth, bf16 / fp8 "
                    f"matmul rates; kept in {escape(info['path'])})", soft_wrap=True)
        elif event == "ceilings_measured":
            c.print(f"[cyan]ceilings measured[/cyan] in {info['seconds']:.0f} s: {escape(info['path'])}",
                    soft_wrap=True)
        elif event == "ceilings_failed":
            c.print(f"[yellow]no device ceilings[/yellow] ({escape(str(info['reason'])[:300])}); no roofline bounds or "
                    "bottleneck classes this campaign", soft_wrap=True)
        elif event == "profile_skipped":  # the clock cannot afford the profiler children: not a failure
            c.print(f"[dim]{escape(info['reason'])}; roofline classes kept[/dim]", soft_wrap=True)


def command_name(name: str) -> str:
    """How to run the console script ``name`` from here: its bare name when it is on ``PATH``, else its path beside
    this interpreter (e.g. ``.venv/bin/kernelopt``, relative when under the working directory; a printed 'resume
    with: kernelopt ...' did not run where the virtual environment is not activated)."""
    if shutil.which(name):
        return name
    beside = Path(sys.executable).parent / name
    if not beside.exists():
        return name
    try:
        return str(beside.relative_to(Path.cwd()))
    except ValueError:
        return str(beside)


def resume_command(operator: str, campaign_run_id: str) -> str:
    """The command that resumes this campaign: this run's own overrides (same store, budget, generator ...; under
    Hydra) with ``campaign.resume``, the operator always named (a resume checks it)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        given = list(HydraConfig.get().overrides.task)
    except ValueError:  # not running under Hydra (a test calling the task)
        given = []
    keep = [o for o in given if not o.lstrip("+~").startswith(("campaign.resume=", "operator=", "operator.name="))]
    args = [f"operator={operator}", *keep, f"campaign.resume={campaign_run_id}"]
    return f"{shlex.quote(command_name('kernelopt'))} optimize " + " ".join(shlex.quote(a) for a in args)


def browse_line(tracking_uri: str) -> str:
    """How to look at the store in MLflow's UI: a server's own address (`mlflow ui --backend-store-uri http://...`
    fails: the UI serves a database, not another server), else `mlflow ui` on the database."""
    if tracking_uri.startswith(("http://", "https://")):
        return f"browse at: {tracking_uri}"
    return f"browse with: {shlex.quote(command_name('mlflow'))} ui --backend-store-uri {tracking_uri}"


def leaderboard_table(rows: list[dict[str, Any]], limit: int = 10) -> Table:
    """The campaign's best candidates."""
    t = Table(title="leaderboard")
    several = len({r.get("campaign") for r in rows}) > 1  # an operator's board: which campaign measured each row
    for col in ("#", *(("campaign",) if several else ()), "candidate", "stage", "passed", "mean ms", "p95 ms",
                "speedup vs ref", "direction"):
        t.add_column(col)
    for r in rows[:limit]:
        t.add_row(str(r["rank"]), *((str(r.get("campaign") or "-")[:8],) if several else ()), str(r["name"]),
                  str(r["stage"]), f"{r['pass_count']}/{r['workload_count']}",
                  "-" if r["mean_latency_ms"] is None else f"{r['mean_latency_ms']:.4f}",
                  "-" if r["p95_latency_ms"] is None else f"{r['p95_latency_ms']:.4f}",
                  speedup_text(r["speedup_vs_reference"]),
                  str(r.get("direction") or "-"))
    return t


def _campaign_and_generator(cfg: Any, on_gpu: bool):  # type: ignore[no-untyped-def]
    """The campaign's config and its generator for hardware with (``on_gpu``) or without a GPU; a generator that
    cannot run here (no API key, no agent executable) is refused as bad input, before any work."""
    from kernelopt.generators.llm_base import generator_options
    from kernelopt.generators.registry import make_generator

    if cfg.controller.surrogate is not None and cfg.generator.name != "offline":
        raise ValueError(f"controller.surrogate={cfg.controller.surrogate}: the surrogate's rounds (direction "
                         "'model_guided') are the offline generator's GP over a seed space; generator="
                         f"{cfg.generator.name} has none (use generator=offline, or controller.surrogate=null)")
    generator = make_generator(cfg.generator.name, **generator_options(
        cfg.generator.name, cfg.generator, cfg.campaign.seed, list(cfg.agent.skills or []),
        hardware=None if on_gpu else "CPU-interpreter"))
    preflight = getattr(generator, "preflight", None)
    if preflight is not None:
        try:
            preflight()
        except RuntimeError as exc:  # e.g. no API key, no agent executable: one line, exit 2
            raise ValueError(str(exc)) from None
    return campaign_config(cfg, on_gpu), generator


def optimize_task(cfg: Any, console: Console | None = None):  # type: ignore[no-untyped-def]
    """Run (or resume) one campaign as configured; print leaderboard, champion and how to browse."""
    from kernelopt.campaign import run_campaign

    console = console or make_console()
    on_gpu = build.gpu_available()
    ccfg, generator = _campaign_and_generator(cfg, on_gpu)  # bad input refused before any worker starts
    store = build.make_store(cfg.tracking)
    display = LiveDisplay(console, ccfg.budget.max_candidates)
    try:
        with sigterm_interrupts(), build.make_executor(cfg.executor, on_gpu) as ex:
            if getattr(ex, "kind", None) == "ray":  # the actors' hardware, not the driver's (a login node has no
                ex.start()  # GPU): preset, timer, workloads and prompt follow it; an actor that cannot start: now
                if ex.gpu != on_gpu:
                    on_gpu = ex.gpu
                    ccfg, generator = _campaign_and_generator(cfg, on_gpu)
            where = ("GPU" if on_gpu else "CPU (Triton interpreter, quick timing, smallest workloads)") + (
                f" through Ray ({len(ex.devices)} actor{'s' if len(ex.devices) != 1 else ''})"
                if getattr(ex, "kind", None) == "ray" else "")
            console.print(f"kernelopt optimize: {ccfg.operator} on {where}; generator={generator.name}, "
                          f"mode={ccfg.mode}, budget={ccfg.budget.max_candidates} "
                          f"candidate{'s' if ccfg.budget.max_candidates != 1 else ''}")
            try:
                outcome = run_campaign(ccfg, store=store, executor=ex, generator=generator, progress=display)
            finally:
                display.close()
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the run is KILLED (run_campaign), its finished runs kept
        if display.run_id is None:
            console.print(f"interrupted by {signal_name(exc)} before the campaign started", markup=False)
        else:
            console.print(f"interrupted by {signal_name(exc)}: campaign {display.run_id} marked KILLED, its finished "
                          f"runs kept; resume with: {resume_command(ccfg.operator, display.run_id)}", soft_wrap=True,
                          markup=False, highlight=False)
        return exit_status(exc)
    # the lines below hold paths, overrides and reasons, e.g. campaign.include=[...]: printed as they are, not as
    # rich markup (call HB's resume line lost its '[operators/...]' as an unknown tag)
    console.print(f"stopped: {outcome.stop_reason}", markup=False)
    console.print(leaderboard_table(store.leaderboard(outcome.campaign_run_id)))
    champ = store.get_champion(ccfg.operator)
    if champ is not None:
        console.print(f"champion of {ccfg.operator}: run {champ.run_id} (registry version {champ.version}), "
                      f"mean {champ.mean_latency_ms:.4f} ms"
                      + (f" — provisional: {champ.provisional}" if champ.provisional else ""), markup=False)
    else:
        console.print(f"no champion registered for {ccfg.operator}")
    console.print(f"resume with: {resume_command(ccfg.operator, outcome.campaign_run_id)}", soft_wrap=True,
                  markup=False, highlight=False)
    console.print(browse_line(store.tracking_uri), markup=False, highlight=False)
    return outcome
