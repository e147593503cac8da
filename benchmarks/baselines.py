"""Evaluate the baseline solutions (reference, torch.compile, fla where present) of operators on
their workloads with the official harness settings, one request per workload, and write a table.

    python benchmarks/baselines.py --operators gdn_decode_qk4_v8_d128_k_last --budget-s 120

A per-(operator, baseline) time budget keeps the sweep inside a device lease: workloads are taken in
an order that spreads over the axis range, and the table states how many were covered.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    Budget,
    command_line,
    device_label,
    fmt,
    md_table,
    summarize_results,
    sweep_order,
    write_results,
)
from kernelopt.cli.build import harness_settings
from kernelopt.data import EvalRequest, load_solution
from kernelopt.executor import make_executor
from kernelopt.operators import CONTEST_OPERATORS, list_operators, load_operator

CONTEST = list(CONTEST_OPERATORS)


def run(operators: list[str], baselines: list[str] | None, budget_s: float, preset: str,
        kind: str, save=None) -> dict:  # noqa: ANN001 - save(payload) after every (operator, baseline)
    on_gpu = kind != "cpu"
    rows, payload = [], {"preset": preset, "budget_s": budget_s, "results": {}}
    with make_executor(kind) as ex:
        for name in operators:
            op = load_operator(name)
            settings = harness_settings({"preset": preset}, name, on_gpu).model_copy(
                update={"time_reference": False})
            files = sorted((op.path / "solutions" / "baselines").glob("*.json"))
            for f in files:
                if baselines and f.stem not in baselines:
                    continue
                sol = load_solution(f)
                t0, done, timer, budget = time.time(), [], None, Budget(budget_s)
                for w in sweep_order(op.workloads):
                    if not budget.left(f.stem):
                        break
                    t = time.time()
                    res = ex.evaluate(EvalRequest(definition=op.definition, solution=sol, workloads=[w],
                                                  settings=settings))
                    budget.charge(f.stem, time.time() - t)
                    done.extend(res.results)
                    timer = res.timer
                entry = {**summarize_results(done, len(op.workloads)), "timer": timer,
                         "wall_s": round(time.time() - t0, 1)}
                payload["results"].setdefault(name, {})[f.stem] = entry
                rows.append([name, f.stem, f"{len(done)}/{len(op.workloads)}", entry["passed"],
                             fmt(entry["mean_ms"]), fmt(entry["median_ms"]), entry["timer"],
                             ",".join(entry["statuses"]), entry["wall_s"]])
                print(rows[-1], flush=True)
                payload["table"] = _table(rows)
                if save is not None:  # a run cut by its caller's time limit keeps what it finished
                    save(payload)
    payload["table"] = _table(rows)
    return payload


def _table(rows: list[list]) -> str:
    return md_table(["operator", "baseline", "evaluated", "passed", "mean ms", "median ms", "timer",
                     "statuses", "wall s"], rows)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--operators", nargs="*", default=CONTEST)
    p.add_argument("--baselines", nargs="*", default=None, help="names (file stems) to run; default all")
    p.add_argument("--budget-s", type=float, default=120.0, help="seconds per (operator, baseline)")
    p.add_argument("--preset", default="official", choices=["official", "quick"])
    p.add_argument("--executor", default="local", choices=["local", "isolated", "cpu"])
    p.add_argument("--name", default=None, help="results file stem")
    a = p.parse_args()
    unknown = [o for o in a.operators if o not in list_operators()]
    if unknown:
        p.error(f"unknown operators {unknown}")
    name = a.name or f"baselines_{device_label()}"
    cmd = command_line("baselines.py")

    def save(payload: dict) -> None:
        write_results(name, {"command": cmd, **payload},
                      f"# Baselines ({device_label()})\n\nCommand: `{cmd}`\n\n{payload['table']}")

    payload = run(a.operators, a.baselines, a.budget_s, a.preset, a.executor, save)
    save(payload)
    print(payload["table"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
