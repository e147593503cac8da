"""Small admin commands (argparse): operators, promote, export, report, dispatch."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.table import Table

from kernelopt.cli.display import error_line, make_console, wrote
from kernelopt.cli.paths import names_folder, output_file_or_folder


def _tracking_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tracking-uri", default=None,
                   help="MLflow tracking URI (default sqlite:///mlruns/mlflow.db in the working directory)")


def cmd_operators(args: argparse.Namespace) -> int:
    """List the operator library: a table where the console is wide enough to show every name whole (names are
    what users type), else one block per operator."""
    from kernelopt.operators import list_operators, load_operator

    cols = ("op_type", "workloads", "var axes", "seeds", "baselines")
    rows = []
    for name in list_operators():
        op = load_operator(name)
        seeds = sorted(p.name for p in (op.path / "solutions" / "seeds").glob("*") if p.is_dir())
        base = sorted(p.stem for p in (op.path / "solutions" / "baselines").glob("*.json"))
        rows.append((name, op.definition.op_type, str(len(op.workloads)), ", ".join(op.definition.var_axes),
                     ", ".join(seeds) or "-", ", ".join(base) or "-"))
    console = make_console()
    longest = max((len(r[0]) for r in rows), default=8)
    if console.width < longest + 70:
        console.print("[bold]kernelopt operator library[/bold]")
        for name, *rest in rows:
            console.print(f"[bold]{name}[/bold]", soft_wrap=True)
            console.print("  " + "; ".join(f"{c}: {v}" for c, v in zip(cols, rest)))
        return 0
    table = Table(title="kernelopt operator library")
    table.add_column("operator", no_wrap=True, min_width=longest)
    for col in cols:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    """Promote a candidate run through the promotion gates (or --force)."""
    from kernelopt.cli.promote import promote_run

    return promote_run(args.run_id, tracking_uri=args.tracking_uri, force=args.force)


def cmd_export(args: argparse.Namespace) -> int:
    """Export a registered solution as FlashInfer Solution JSON."""
    from kernelopt.operators import load_operator
    from kernelopt.tracking import TrackingStore

    load_operator(args.operator)  # an unknown name: the known ones, not "no version with alias"
    output_file_or_folder(args.output, "--output")
    store = TrackingStore(args.tracking_uri, existing=True)
    path = store.export(args.operator, alias=args.alias, path=args.output)
    wrote(path)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Leaderboard and plots for an operator or a campaign."""
    from kernelopt.cli.report import report

    return report(args.target, tracking_uri=args.tracking_uri, out_dir=args.out, compare=args.compare)


def cmd_dispatch(args: argparse.Namespace) -> int:
    """Compose a band dispatch of specialists over one var axis and write it as a Solution JSON."""
    from kernelopt.cli.tasks import load_solution_arg, require_operator
    from kernelopt.generators.dispatch import compose_dispatch
    from kernelopt.operators import load_operator

    op = load_operator(args.operator)
    if args.axis not in op.definition.var_axes:
        raise ValueError(f"--axis {args.axis}: not a var axis of {op.name} (its var axes: "
                         f"{', '.join(op.definition.var_axes)}); a const axis has one value, nothing to split")
    low = [u for u in args.upper if u < 1]
    if low:
        raise ValueError(f"--upper {low[0]}: band edges are sizes of {args.axis}, at least 1")
    specialists = [require_operator(load_solution_arg(b, None), op.name, f"{b}: solution") for b in args.band]
    out = output_file_or_folder(args.output, "--output") or Path.cwd()
    sol = compose_dispatch(op.definition, specialists, list(args.upper), args.axis)
    if names_folder(args.output or out):  # a folder (default: the working directory) holds <name>.json, as export
        out = out / f"{sol.name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(sol.model_dump_json(indent=1, exclude_none=True) + "\n")
    wrote(out, f": {sol.description}")
    return 0


def cmd_completion(args: argparse.Namespace) -> int:
    """Print the shell completion script (the commands, and each Hydra command's keys and options)."""
    from kernelopt.cli.completion import completion_script
    from kernelopt.cli.main import ADMIN_COMMANDS, HYDRA_COMMANDS

    print(completion_script(args.shell, "kernelopt", list(HYDRA_COMMANDS), [*HYDRA_COMMANDS, *ADMIN_COMMANDS]),
          end="")
    return 0


def run(command: str, argv: list[str]) -> int:
    """Parse ``argv`` for ``command`` and run it."""
    p = argparse.ArgumentParser(prog=f"kernelopt {command}")
    if command == "operators":
        fn = cmd_operators
    elif command == "promote":
        p.add_argument("run_id", help="candidate run id (a sweep or repeat run)")
        p.add_argument("--force", action="store_true",
                       help="skip the noise-floor and repeat gates (PASSED on every workload and a gain of "
                            "min_improvement over the champion still required)")
        _tracking_args(p)
        fn = cmd_promote
    elif command == "export":
        p.add_argument("operator", help="definition name")
        p.add_argument("--alias", default="champion",
                       help="the registry alias to export (default champion; promote sets it)")
        p.add_argument("--output", "-o", default=None,
                       help="output JSON path, or a folder for <name>.json (default: the working directory)")
        _tracking_args(p)
        fn = cmd_export
    elif command == "report":
        p.add_argument("target", help="definition name or campaign run id")
        p.add_argument("--compare", nargs="*", default=None, help="campaign run ids to compare (with an operator name and no ids: all its campaigns)")
        p.add_argument("--out", default="reports", help="folder for PNG plots")
        _tracking_args(p)
        fn = cmd_report
    elif command == "dispatch":
        p.add_argument("operator", help="definition name")
        p.add_argument("--axis", required=True,
                       help="the var axis the bands split (read from an input's shape)")
        p.add_argument("--band", action="append", required=True, metavar="SOLUTION",
                       help="a specialist, in band order: Solution JSON, source folder or seed folder "
                            "(FOLDER@KEY=VALUE,... for another point of its space); repeat per band")
        p.add_argument("--upper", action="append", type=int, default=[], metavar="N",
                       help="inclusive upper edge of each band but the last (repeat, increasing)")
        p.add_argument("--output", "-o", default=None,
                       help="output JSON path, or a folder for <name>.json (default: the working directory)")
        fn = cmd_dispatch
    elif command == "completion":
        p.add_argument("shell", nargs="?", default="bash", choices=["bash"],
                       help="bash (zsh: after `autoload -U bashcompinit && bashcompinit`)")
        fn = cmd_completion
    elif command == "doctor":
        from kernelopt.cli.doctor import cmd_doctor

        p.add_argument("--json", action="store_true", help="print the checks as JSON (the progress goes to stderr)")
        _tracking_args(p)
        fn = cmd_doctor
    else:  # pragma: no cover - main() filters commands
        raise SystemExit(f"unknown command {command}")
    args = p.parse_args(argv)
    try:
        return fn(args)
    except (ValueError, KeyError, OSError) as exc:
        error_line(command, exc)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1], sys.argv[2:]))
