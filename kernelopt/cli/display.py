"""Rich rendering of evaluation results and leaderboards."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kernelopt.analysis.profile_parse import bottleneck_metrics, dominant_kernel_metrics
from kernelopt.data import EvalResult, WorkloadResult


class _Labelled(io.TextIOBase):
    """A text stream that starts every line with a label, and says it is no terminal (no live redraws)."""

    def __init__(self, stream: Any, label: str) -> None:
        self.stream, self.label, self._line_start = stream, label, True

    def write(self, text: str) -> int:
        pieces = []
        for piece in text.splitlines(keepends=True):
            pieces.append((self.label if self._line_start else "") + piece)
            self._line_start = piece.endswith("\n")
        self.stream.write("".join(pieces))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False


_LINE_LABEL: list[str] = []  # set once per process by label_lines


def label_lines(label: str | None) -> None:
    """Start every line the consoles of this process print with ``label`` (``None``: no label). Parallel jobs of
    a multirun share one terminal: without it their campaign lines interleave with no way to tell them apart; a
    labelled console also draws no live progress bar (two jobs' bars would overwrite each other's lines)."""
    _LINE_LABEL[:] = [label] if label else []


def make_console(stderr: bool = False) -> Console:
    """A console; when output is piped (logs, CI, tests) it is wide so tables are not squeezed; in a labelled
    process (:func:`label_lines`) every line starts with the label."""
    if _LINE_LABEL:
        return Console(file=_Labelled(sys.stderr if stderr else sys.stdout, _LINE_LABEL[0]), width=200)
    c = Console(stderr=stderr)
    return c if c.is_terminal else Console(stderr=stderr, width=200)


def wrote(path: object, detail: str = "") -> None:
    """The line a command prints for a file it wrote: ``wrote <path><detail>``, the path in bold, never
    hard-wrapped (it stays whole for grep and copy-paste) and never read as markup (``[...]`` is printed as is)."""
    make_console().print(f"wrote [bold]{escape(str(path))}[/bold]{escape(detail)}", soft_wrap=True)


def error_line(command: str, exc: BaseException) -> None:
    """The one red line on stderr that a CLI command prints for bad input."""
    make_console(stderr=True).print(f"[red]kernelopt {command}: {escape(str(exc))}[/red]", soft_wrap=True)


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def speedup_text(x: float | None) -> str:
    """A speedup as ``12.34x``; under 0.1 with two significant digits (``0.0042x``: the CPU interpreter against
    the PyTorch reference read ``0.00x``, as if nothing had been measured)."""
    if x is None:
        return "-"
    return f"{x:.2f}x" if x >= 0.1 else f"{x:.2g}x"


def _err(x: float | None) -> str:
    return "-" if x is None else f"{x:.2e}"


def results_table(title: str, rows: Iterable[WorkloadResult], timer: str | None) -> Table:
    """Per-workload table: status, latency, reference latency, speedup, max errors."""
    t = Table(title=f"{title}  (timer={timer})" if timer else title)
    for col in ("workload", "axes", "status", "latency ms", "ref ms", "speedup", "max abs", "max rel"):
        t.add_column(col, justify="right" if col not in ("workload", "axes", "status") else "left")
    for r in rows:
        colour = "green" if r.passed else "red"
        t.add_row(r.uuid[:8], ",".join(f"{k}={v}" for k, v in r.axes.items()),
                  f"[{colour}]{r.status.value}[/{colour}]",
                  _ms(r.latency.mean_ms if r.latency else None),
                  _ms(r.reference_latency.mean_ms if r.reference_latency else None),
                  speedup_text(r.speedup),
                  _err(r.max_abs_error), _err(r.max_rel_error))
    return t


def summary_line(result: EvalResult) -> str:
    """One line: pass count and mean latency."""
    mean = result.mean_latency_ms()
    lat = f", mean latency {mean:.4f} ms" if mean is not None else ""
    timer = f" (timer={result.timer})" if result.timer else ""  # none when nothing was timed (all failed)
    return f"{result.pass_count}/{len(result.results)} PASSED{lat}{timer}"


def failure_reasons(result: EvalResult, limit: int = 5) -> list[str]:
    """``uuid STATUS: last log line`` of the workloads that did not pass, one per distinct reason (up to
    ``limit``, then how many more): the status alone does not tell a missing module from a shape error."""
    seen: dict[str, str] = {}
    for r in result.results:
        if r.passed:
            continue
        one = r.failure_line(result.build_log, 200)
        if one not in seen:
            seen[one] = r.uuid[:8]
    lines = [f"{u} {why}" for why, u in list(seen.items())[:limit]]
    return lines + ([f"(+{len(seen) - limit} more reasons)"] if len(seen) > limit else [])


def print_results(result: EvalResult, console: Console | None = None) -> None:
    """Print the table, the summary and why workloads failed for one evaluation (nothing to show: one line)."""
    c = console or make_console()
    if not result.results:
        c.print(f"{result.solution} on {result.definition}: no workload evaluated", markup=False)
        return
    c.print(results_table(f"{result.solution} on {result.definition}", result.results, result.timer))
    c.print(summary_line(result))
    for line in failure_reasons(result):
        c.print(f"  [red]{escape(line)}[/red]", soft_wrap=True)


def print_profiles(profiles: dict[str, Any], console: Console, latencies: dict[str, float] | None = None) -> None:
    """One row per profiled workload: its longest kernel, kernels and device time per call (warm, and with the L2
    flushed before each call where the profile has that pass), host-gap share,
    the share of the official span no kernel covers (with ``latencies``, UUID -> official ms; measured where the
    profile has the official loop's span anatomy) and the dominant
    kernel's Nsight Compute DRAM/SM throughput when ncu ran (else why not)."""
    t = Table(title="profiles")
    for col in ("workload", "top kernel", "kernels/call", "device us/call warm / cold", "host gap %", "span idle %",
                "ncu DRAM % / SM %"):
        t.add_column(col)
    for uuid, prof in profiles.items():
        table = prof.get("torch") or {}
        kernels = table.get("kernels") or []
        top = kernels[0]["name"][:40] if kernels else (table.get("error") or "(no device kernels)")[:40]
        ncu = prof.get("ncu")
        if ncu is None:
            ncu_cell = "-"
        elif ncu.get("launches"):
            dom = dominant_kernel_metrics(ncu["launches"])
            ncu_cell = f"{dom.get('dram_throughput_pct', float('nan')):.0f} / {dom.get('sm_throughput_pct', float('nan')):.0f}"
        else:
            ncu_cell = str(ncu.get("error", "?"))[:40]
        gap = table.get("host_gap_pct")
        idle = bottleneck_metrics(prof, (latencies or {}).get(uuid)).get("span_idle_pct")
        cold = table.get("cold_device_us_per_call")
        warm = table.get("device_us_per_call") if kernels else None  # no device kernel (a CPU run): no figure
        cold = cold if kernels else None
        device = ("-" if warm is None else f"{warm:.1f}") + " / " + ("-" if cold is None else f"{cold:.1f}")
        t.add_row(uuid[:8], top, f"{table.get('kernels_per_call', 0):g}", device,
                  "-" if gap is None else f"{gap:.0f}", "-" if idle is None else f"{idle:.0f}", ncu_cell)
    console.print(t)
