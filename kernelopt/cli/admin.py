"""Small admin commands (argparse): operators, promote, export, report."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from kernelopt.cli.display import make_console


def _tracking_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tracking-uri", default=None,
                   help="MLflow tracking URI (default sqlite:///mlruns/mlflow.db in the working directory)")


def cmd_operators(args: argparse.Namespace) -> int:
    """List the operator library."""
    from kernelopt.operators import list_operators, load_operator

    table = Table(title="kernelopt operator library")
    for col in ("operator", "op_type", "workloads", "var axes", "seeds", "baselines"):
        table.add_column(col)
    for name in list_operators():
        op = load_operator(name)
        seeds = sorted(p.name for p in (op.path / "solutions" / "seeds").glob("*") if p.is_dir())
        base = sorted(p.stem for p in (op.path / "solutions" / "baselines").glob("*.json"))
        table.add_row(name, op.definition.op_type, str(len(op.workloads)),
                      ",".join(op.definition.var_axes), ",".join(seeds) or "-", ",".join(base) or "-")
    make_console().print(table)
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    """Promote a candidate run through the promotion gates (or --force)."""
    from kernelopt.cli.promote import promote_run

    return promote_run(args.run_id, tracking_uri=args.tracking_uri, force=args.force)


def cmd_export(args: argparse.Namespace) -> int:
    """Export a registered solution as FlashInfer Solution JSON."""
    from kernelopt.tracking import TrackingStore

    store = TrackingStore(args.tracking_uri)
    path = store.export(args.operator, alias=args.alias, path=args.output)
    Console().print(f"wrote [bold]{path}[/bold]")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Leaderboard and plots for an operator or a campaign."""
    from kernelopt.cli.report import report

    return report(args.target, tracking_uri=args.tracking_uri, out_dir=args.out, compare=args.compare)


def run(command: str, argv: list[str]) -> int:
    """Parse ``argv`` for ``command`` and run it."""
    p = argparse.ArgumentParser(prog=f"kernelopt {command}")
    if command == "operators":
        fn = cmd_operators
    elif command == "promote":
        p.add_argument("run_id", help="candidate run id (a sweep or repeat run)")
        p.add_argument("--force", action="store_true", help="skip the noise-floor gate (PASSED still required)")
        _tracking_args(p)
        fn = cmd_promote
    elif command == "export":
        p.add_argument("operator", help="definition name")
        p.add_argument("--alias", default="champion")
        p.add_argument("--output", "-o", default=None, help="output JSON path")
        _tracking_args(p)
        fn = cmd_export
    elif command == "report":
        p.add_argument("target", help="definition name or campaign run id")
        p.add_argument("--compare", nargs="*", default=None, help="campaign run ids to compare (with an operator name and no ids: all its campaigns)")
        p.add_argument("--out", default="reports", help="folder for PNG plots")
        _tracking_args(p)
        fn = cmd_report
    else:  # pragma: no cover - main() filters commands
        raise SystemExit(f"unknown command {command}")
    args = p.parse_args(argv)
    try:
        return fn(args)
    except (ValueError, KeyError, FileNotFoundError) as exc:
        Console(stderr=True).print(f"[red]kernelopt {command}: {exc}[/red]")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1], sys.argv[2:]))
