"""Evidence for the controller (pure Python: no torch, mlflow or hydra).

* :mod:`~kernelopt.analysis.bands` — shape discovery: bands of workloads, latency shares, outliers,
  representative gate workloads;
* :mod:`~kernelopt.analysis.roofline` — per-operator minimum bytes/FLOPs, device ceilings, lower bounds;
* :mod:`~kernelopt.analysis.bottleneck` — bottleneck classes from metric tables or timings, thresholds
  from ``skills/bottlenecks.md``;
* :mod:`~kernelopt.analysis.profile_parse` — torch.profiler tables and ``ncu --csv --page raw`` output.
"""

from kernelopt.analysis.bands import Band, BandAnalysis, discover_bands
from kernelopt.analysis.bottleneck import classify, classify_from_roofline, load_bottleneck_table
from kernelopt.analysis.roofline import (
    Ceilings,
    load_ceilings,
    load_roofline,
    lower_bound_ms,
    roofline_fraction,
    workload_bounds,
)

__all__ = [
    "Band", "BandAnalysis", "Ceilings", "classify", "classify_from_roofline", "discover_bands",
    "load_bottleneck_table", "load_ceilings", "load_roofline", "lower_bound_ms", "roofline_fraction",
    "workload_bounds",
]
