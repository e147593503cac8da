"""PNG plots for campaign reports (matplotlib's Agg canvas, no pyplot global state, no display).

Pure functions over plain lists; :mod:`kernelopt.tracking.report` feeds them from the tracking store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path


def _figure(width: float = 9.0, height: float = 5.0):  # -> (Figure, Axes)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot(1, 1, 1)


def _integer_x(ax) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _save(fig, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, format="png")
    return out


def best_so_far(values: Sequence[float | None]) -> list[float | None]:
    """Running minimum, skipping ``None`` (failed candidates); ``None`` until the first success."""
    best: float | None = None
    out: list[float | None] = []
    for v in values:
        if v is not None and math.isfinite(v) and (best is None or v < best):
            best = v
        out.append(best)
    return out


def plot_progress(values: Sequence[float | None], path: str | Path, title: str = "") -> Path:
    """Mean latency of each candidate (dots; failed ones as red crosses on the top edge) and the
    best-so-far curve, against candidate index."""
    fig, ax = _figure()
    xs = list(range(1, len(values) + 1))
    ok = [(x, v) for x, v in zip(xs, values) if v is not None]
    bad = [x for x, v in zip(xs, values) if v is None]
    if ok:
        ax.scatter([x for x, _ in ok], [v for _, v in ok], s=22, color="tab:blue", label="candidate (all passed)")
    best = best_so_far(values)
    bx = [x for x, b in zip(xs, best) if b is not None]
    ax.step(bx, [b for b in best if b is not None], where="post", color="tab:green", lw=2, label="best so far")
    if bad:
        ax.scatter(bad, [1.0] * len(bad), marker="x", color="tab:red", transform=ax.get_xaxis_transform(),
                   clip_on=False, label="failed")
    _integer_x(ax)
    ax.set_xlabel("candidate index")
    ax.set_ylabel("mean latency over workloads (ms)")
    ax.set_title(title or "campaign progress")
    ax.grid(alpha=0.3)
    if xs:
        ax.set_xlim(0.5, len(xs) + 0.5)
    ax.legend(loc="upper right", fontsize=8)
    return _save(fig, path)


def plot_speedups(workloads: Sequence[str], series: dict[str, Sequence[float | None]], path: str | Path,
                  title: str = "") -> Path:
    """Grouped bars: per-workload speedup of the champion over each comparison (log scale, 1x line)."""
    if not workloads or not series:
        raise ValueError("plot_speedups: need at least one workload and one series")
    fig, ax = _figure(max(9.0, 0.45 * len(workloads) * max(1, len(series))), 5.0)
    width = 0.8 / len(series)
    for i, (label, values) in enumerate(series.items()):
        if len(values) != len(workloads):
            raise ValueError(f"plot_speedups: series {label!r} has {len(values)} values for {len(workloads)} workloads")
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(workloads))]
        ax.bar(xs, [v if v is not None else 0.0 for v in values], width=width, label=label)
    ax.axhline(1.0, color="black", lw=1, ls="--")
    _speedup_axis(ax, [v for values in series.values() for v in values])
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([w[:8] for w in workloads], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("speedup of champion (x)")
    ax.set_xlabel("workload")
    ax.set_title(title or "champion speedup per workload")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return _save(fig, path)


def _speedup_axis(ax, values: Sequence[float | None]) -> None:
    """A log y axis labelled ``<v>x``: every minor tick labelled only when the bars (and the 1x line) span less
    than a decade; over several decades the 2x..9x labels of each decade overlapped into a smear."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_yscale("log")
    fmt = FuncFormatter(lambda v, _pos: f"{v:g}x")
    shown = [v for v in values if v is not None and math.isfinite(v) and v > 0] + [1.0]
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(fmt if max(shown) / min(shown) < 10 else NullFormatter())


def plot_campaigns(curves: dict[str, Sequence[float | None]], path: str | Path, title: str = "") -> Path:
    """Best-so-far mean latency of several campaigns on one plot (e.g. Full-Agent vs Agent-Assisted)."""
    if not curves:
        raise ValueError("plot_campaigns: no campaigns to plot")
    fig, ax = _figure()
    for label, values in curves.items():
        best = best_so_far(values)
        pts = [(i + 1, b) for i, b in enumerate(best) if b is not None]
        if pts:
            ax.step([x for x, _ in pts], [b for _, b in pts], where="post", lw=2, label=label)
        else:
            ax.plot([], [], label=f"{label} (no passing candidate)")
    _integer_x(ax)
    ax.set_xlabel("candidate index")
    ax.set_ylabel("best mean latency so far (ms)")
    ax.set_title(title or "campaign comparison")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)
