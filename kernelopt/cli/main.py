"""`kernelopt` console script: dispatches to Hydra-composed tasks and small admin commands."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"

HYDRA_COMMANDS: dict[str, str] = {
    "optimize": "run an optimisation campaign (Hydra overrides; -m for multirun ablations)",
    "evaluate": "evaluate one solution on an operator's workloads (solution=<json|folder>)",
    "prompt": "print the prompt an agent mode would send (operator=... agent=...; no network)",
}
ADMIN_COMMANDS: dict[str, str] = {
    "operators": "list the operator library with workload counts",
    "promote": "promote a candidate run to champion through the same gates",
    "export": "export a registered kernel (alias champion) as FlashInfer Solution JSON",
    "report": "print a campaign leaderboard and write PNG plots",
    "dispatch": "compose specialists into one band-dispatch Solution JSON (--axis, --band, --upper)",
    "completion": "print the bash completion script (eval \"$(kernelopt completion bash)\")",
    "doctor": "check what this machine gives kernelopt: GPU, timer, worker sandbox, operators, configs",
}

COMPLETION_NOTE = ('Shell completion for kernelopt\'s commands: eval "$(kernelopt completion bash)" (the -sc lines '
                   "above complete a one-word program, kernelopt-<command>, which is not installed)")

USAGE = """usage: kernelopt <command> [args]

kernelopt: harness-centred LLM-driven GPU kernel optimisation (FlashInfer Trace, MLflow, Hydra).

commands:
{rows}

`kernelopt <command> --help` for a command's options. Hydra commands take overrides, e.g.
  kernelopt optimize operator=gdn_decode_qk4_v8_d128_k_last controller.max_candidates=20
  kernelopt optimize -m agent=full_agent,agent_assisted hydra/launcher=joblib
"""


def _usage() -> str:
    rows = {**HYDRA_COMMANDS, **ADMIN_COMMANDS}
    return USAGE.format(rows="\n".join(f"  {k:<10} {v}" for k, v in rows.items()))


def _hydra_task(command: str) -> Callable[[object], object]:
    from kernelopt.cli import tasks

    if command == "prompt":
        from kernelopt.cli.prompt import prompt_main

        return prompt_main
    return {"optimize": tasks.optimize_main, "evaluate": tasks.evaluate_main}[command]


def multirun_job() -> tuple[int, str] | None:
    """This job's number and overrides (``"no overrides"`` when none) in a multirun; ``None`` in a single run."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    hc = HydraConfig.get()
    if hc.mode != RunMode.MULTIRUN:
        return None
    return hc.job.num, " ".join(hc.overrides.task) or "no overrides"


def multirun_job_failure(command: str, code: int) -> Exception | None:
    """In a multirun, the exception that marks this job failed for the sweep (Hydra raises it after the jobs of the
    batch have run: the command exits 1 naming the job); ``None`` in a single run, whose exit code is ``code``.

    A launcher that runs jobs in other processes (joblib, submitit) saw no exit code: a multirun of failed jobs
    exited 0."""
    from hydra.errors import CompactHydraException

    job = multirun_job()
    if job is None:
        return None
    return CompactHydraException(f"kernelopt {command}: multirun job {job[0]} ({job[1]}) exited with code {code}")


def label_multirun_output() -> str | None:
    """In a multirun, label every console line of this job ``[#N]`` (and say once which overrides that is), so
    parallel jobs (joblib) sharing a terminal can be told apart; returns the label (``None`` in a single run)."""
    from kernelopt.cli.display import label_lines, make_console

    job = multirun_job()
    if job is None:
        return None
    label = f"[#{job[0]}] "
    label_lines(label)
    make_console().print(f"multirun job {job[0]}: {job[1]}", soft_wrap=True, markup=False)
    return label


def run_hydra(command: str, overrides: list[str]) -> int:
    """Run a Hydra-decorated task with the real Hydra runtime (so -m / launchers work)."""
    import hydra

    from kernelopt.cli.hydra_help import command_help, help_asked
    from kernelopt.cli.overrides import override_problem
    from kernelopt.cli.schema import register_schemas

    register_schemas()
    task = _hydra_task(command)  # its module may register the command's own schema (prompt)
    wants_help, given = help_asked(overrides)
    problem = override_problem(CONF_DIR, command, given)
    if problem is None and wants_help:
        print(command_help(CONF_DIR, command, HYDRA_COMMANDS[command], given))
        return 0
    if problem is not None:
        print(f"kernelopt {command}: {problem}", file=sys.stderr)
        return 2
    exit_code = {"code": 0}

    @hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name=command)
    def _entry(cfg):  # type: ignore[no-untyped-def]
        label_multirun_output()
        code = task(cfg)
        if isinstance(code, int) and code:
            failed = multirun_job_failure(command, code)
            if failed is not None:  # joblib / submitit run the job in another process: only an exception comes back
                raise failed
            exit_code["code"] = code

    saved = sys.argv
    sys.argv = [f"kernelopt-{command}", *overrides]
    try:
        _entry()
    finally:
        sys.argv = saved
        if "--hydra-help" in overrides:  # its -sc lines name a one-word program, kernelopt-<command>
            print(COMPLETION_NOTE)
    return exit_code["code"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kernelopt`` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    command, rest = args[0], args[1:]
    if command in HYDRA_COMMANDS:
        return run_hydra(command, rest)
    if command in ADMIN_COMMANDS:
        from kernelopt.cli import admin

        return admin.run(command, rest)
    print(f"kernelopt: unknown command '{command}'\n", file=sys.stderr)
    print(_usage(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
