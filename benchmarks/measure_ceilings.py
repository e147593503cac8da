"""Measure the device ceilings the roofline model divides by, once per device (GPU only).

The measurement is ``kernelopt.harness.ceilings`` (copy bandwidth on 1 GiB fp32, bf16 and fp8 8192^3 matmul
rates, the fp32 datasheet rate; its docstring); this script keeps a copy of the result under
``benchmarks/results/`` and, with ``--write``, ships it with kernelopt (``kernelopt/analysis/ceilings/<device>.json``,
matched by the device's full name). Campaigns measure unknown devices themselves into the ceilings cache.

Usage::

    python benchmarks/measure_ceilings.py            # print + benchmarks/results/ceilings_<device>.json
    python benchmarks/measure_ceilings.py --write    # also write kernelopt/analysis/ceilings/<device>.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, hardware_label

from kernelopt.harness.ceilings import measure

CEILINGS_DIR = ROOT / "kernelopt" / "analysis" / "ceilings"


def main(argv: list[str] | None = None) -> None:
    """Measure, print and save the ceilings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write kernelopt/analysis/ceilings/<device>.json")
    args = parser.parse_args(argv)
    try:
        data = measure(source="benchmarks/measure_ceilings.py")
    except RuntimeError as exc:
        raise SystemExit(f"measure_ceilings.py: {exc}") from None
    text = json.dumps(data, indent=2) + "\n"
    print(text)
    label = hardware_label(data["device"])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"ceilings_{label}.json").write_text(text)
    if args.write:
        (CEILINGS_DIR / f"{label}.json").write_text(text)


if __name__ == "__main__":
    main()
