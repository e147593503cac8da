"""Where the retained DSA indexer's time goes at long context: its one launch against its two parts alone.

The retained indexer (``dsa_indexer_one_acc``, 2026-12-02) scores a row's positions with the FP8 tensor cores and
lets the row's last scoring program run the exact radix top-2048 select over the row held in registers, all in one
launch at the select's warp count (8 warps at 33-45 pages, 16 at 82-91). Its contest traces read 24.8 / 25.4 /
49.5 us at 33-36 / 38-45 / 82-91 pages, 0.03-0.04 of the roofline; Nsight Compute sees one kernel and cannot say
which part holds the time. This script times, on the same inputs:

* ``one``: the seed's ``run`` (the kernel as the contest runs it);
* ``scores``: the seed's span scoring alone (``_score_span_acc``, the same code, in a kernel of its own) at the
  one-launch kernel's warp count, and ``scores_w4`` at 4 warps (what the scoring would take at its own width);
* ``select``: the seed's in-register select alone (``dsa_indexer_one``'s ``select_topk_regs``; with ``--seed
  dsa_indexer_bisect`` that seed's ``select_topk_bisect`` at the launch's warp count; with ``--seed
  dsa_indexer_hist`` its ``select_topk_hist``, which builds the key histogram in a launch of its own first, as
  the scoring kernel here does not: that launch's time is in the column), one program per row at the same warp
  count, over the scores just computed;

and checks that the select over those scores returns the one-launch kernel's ids (same scores, same exact select:
element for element). Times are medians of ``--iters`` calls, by ``--timer``: ``cupti`` (default: device time with
the L2 flushed before each call, as the official timing, so the one launch's figure is comparable with the contest
traces) or ``cuda_event`` (events around each call: a 20-70 us kernel's figure then holds the host's launch time:
call BP's first run of this script read 74.5 us for a one launch the contest traces time at 28.7 us). On a CPU
(``TRITON_INTERPRET=1``) only the plumbing and the check run: the times mean nothing.

    python benchmarks/indexer_parts.py                       # one workload per long band (largest batch), on a GPU
    python benchmarks/indexer_parts.py --workloads 7fb5f7cd-166f-5342-b333-bdfadb3328c8
    python benchmarks/indexer_parts.py --shapes 2:34:80      # synthetic: batch:max_num_pages:num_pages
    python benchmarks/indexer_parts.py --seed dsa_indexer_bisect --params BITS=2 --name bisect2

Writes ``benchmarks/results/indexer_parts_<device>[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TIMER_WORDS,
    add_sweep_options,
    call_timer,
    fmt,
    md_table,
    sweep_results,
    workloads_by_prefix,
    write_sweep,
)

IDX = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
SEEDS = Path(__file__).resolve().parents[1] / "operators" / IDX / "solutions" / "seeds"
#: the seeds this script can split: for each, the module of its package holding the span scoring
#: ``_score_span_acc`` and the module and function that run its select alone over a score matrix (``kernel`` is
#: the seed's own module, ``acc`` / ``one`` the linked ``dsa_indexer_one_acc`` / ``dsa_indexer_one`` kernels)
SELECT_ALONE = {"dsa_indexer_one_acc": ("kernel", "one", "select_topk_regs"),
                "dsa_indexer_bisect": ("acc", "kernel", "select_topk_bisect"),
                "dsa_indexer_hist": ("acc", "kernel", "select_topk_hist")}
#: default workloads: the largest batch in each long band of max_num_pages
BANDS = ((33, 36), (38, 45), (82, 91))

#: the seed package's span scoring, bound by :func:`load_seed_module` before the first launch of the kernel below
_score_span_acc = None


@triton.jit
def _scores_only_kernel(q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, max_pages, max_pos,
                        H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr,
                        BLOCKS: tl.constexpr, ACC: tl.constexpr):
    """The seed's span scoring alone: grid (spans, rows), as its one-launch kernel's, without the select."""
    _score_span_acc(q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, max_pages, max_pos,
                    tl.program_id(0), tl.program_id(1).to(tl.int64), H, D, PAGE, BN, BLOCKS, ACC)


def load_seed_module(name: str, params: dict[str, Any]) -> tuple[Any, Any, Any, dict[str, Any]]:
    """The seed's kernel module, its select-alone function (:data:`SELECT_ALONE`) and the seeds' select warp
    rule (``dsa_indexer_one``'s ``select_warps``), imported as the harness imports a solution, and the parameters
    used (the seed's defaults under ``params``)."""
    global _score_span_acc
    from kernelopt.generators.seeds import load_seed
    from kernelopt.harness.build_cache import import_entry_module, materialize

    if name not in SELECT_ALONE:
        raise SystemExit(f"indexer_parts: --seed must be one of {sorted(SELECT_ALONE)}, got {name!r}")
    seed = load_seed(SEEDS / name)
    point = {**seed.spec.defaults, **params}
    sol = seed.instantiate(point)
    pkg = materialize(sol, "py", Path(tempfile.mkdtemp(prefix="indexer_parts_")))
    mod = import_entry_module(pkg, sol.spec.entry_file)
    package = mod.__name__.rsplit(".", 1)[0]

    def module(where: str) -> Any:
        return mod if where == "kernel" else sys.modules[f"{package}.{where}"]

    scoring, where, attr = SELECT_ALONE[name]
    _score_span_acc = module(scoring)._score_span_acc
    return mod, getattr(module(where), attr), module("one").select_warps, point


def pick_workloads(op: Any, uuids: list[str] | None) -> list[Any]:
    """The workloads named by UUID prefixes, else the largest batch of each band in :data:`BANDS`."""
    if uuids:
        return workloads_by_prefix(op, uuids, "indexer_parts")
    out = []
    for lo, hi in BANDS:
        band = [w for w in op.workloads if lo <= w.axes["max_num_pages"] <= hi]
        out.append(max(band, key=lambda w: w.axes["batch_size"]))
    return out


def synthetic(op: Any, shape: str) -> Any:
    """A workload of the definition at ``batch:max_num_pages:num_pages`` (its inputs drawn by the generators)."""
    from kernelopt.data import Workload

    try:
        b, p, n = (int(x) for x in shape.split(":"))
    except ValueError:
        raise SystemExit(f"indexer_parts: --shapes takes batch:max_num_pages:num_pages, got {shape!r}") from None
    template = op.workloads[0].model_dump(mode="json")
    return Workload.model_validate({**template, "uuid": f"synthetic-{b}x{p}x{n}",
                                    "axes": {"batch_size": b, "max_num_pages": p, "num_pages": n}})


def measure(mod: Any, select: Any, select_warps: Any, point: dict[str, Any], wl: Any, device: str, timer: Any,
            warmup: int, iters: int) -> dict[str, Any]:
    """One row: the parts' median times (ms) and the ids check, for workload ``wl``."""
    import torch

    from kernelopt.harness.inputs import make_inputs
    from kernelopt.operators import load_operator

    inputs = make_inputs(load_operator(IDX).definition, wl, device=device, seed=0)
    args = list(inputs.values())
    batch = wl.axes["batch_size"]
    out_one = torch.full((batch, mod.TOPK), 12345, dtype=torch.int32, device=device)
    a = mod.indexer_args("indexer_parts", *args, out_one)
    max_pos, bn, blocks = a["max_pos"], int(point["BN"]), int(point["BLOCKS"])
    if max_pos <= mod.TOPK or max_pos > mod.RADIX_MAX_POS:
        raise SystemExit(f"indexer_parts: {wl.uuid} has {max_pos} positions; the parts exist for 2,049-"
                         f"{mod.RADIX_MAX_POS} (a pass-through or streaming row otherwise)")
    npad = max(triton.next_power_of_2(max_pos), 256)
    warps = int(point["num_warps"]) or select_warps(npad)
    # the select alone at the launch's warp count where it takes one (dsa_indexer_one's runs at its own rule)
    extra = {"num_warps": warps} if "num_warps" in inspect.signature(select).parameters else {}
    scores = torch.empty(batch, max_pos, dtype=torch.float32, device=device)
    out_sel = torch.full_like(out_one, 12345)
    grid = (triton.cdiv(max_pos, bn * blocks), batch)
    shape = {"H": mod.NUM_HEADS, "D": mod.HEAD_DIM, "PAGE": mod.PAGE_SIZE, "BN": bn, "BLOCKS": blocks,
             "ACC": int(point["ACC"]), "num_stages": int(point["num_stages"])}

    def run_one() -> None:
        mod.run(*args, out_one)

    def scores_at(nw: int):
        return lambda: _scores_only_kernel[grid](a["q"], a["k_bytes"], a["k_scales"], a["w"], a["lens"], a["table"],
                                                 scores, a["max_pages"], max_pos, num_warps=nw, **shape)

    def run_select() -> None:
        select(scores, a["lens"], a["table"], out_sel, **extra)

    row: dict[str, Any] = {"workload": wl.uuid, "batch_size": batch, "max_num_pages": wl.axes["max_num_pages"],
                           "warps": warps}
    row["one_ms"] = timer(run_one, warmup, iters)
    row["scores_w4_ms"] = timer(scores_at(4), warmup, iters)
    row["scores_ms"] = timer(scores_at(warps), warmup, iters)  # last: `scores` now holds this kernel's output
    row["select_ms"] = timer(run_select, warmup, iters)
    row["rest_ms"] = row["one_ms"] - row["scores_ms"] - row["select_ms"]
    row["ids_equal"] = bool(torch.equal(out_one.cpu(), out_sel.cpu()) and (out_one != 12345).all())
    return row


def markdown(data: dict[str, Any], command: str) -> str:
    rows = [[r["workload"][:8], r["batch_size"], r["max_num_pages"], r["warps"], fmt(r["one_ms"]),
             fmt(r["scores_ms"]), fmt(r["scores_w4_ms"]), fmt(r["select_ms"]), fmt(r["rest_ms"]),
             "yes" if r["ids_equal"] else "**no**"] for r in data["rows"]]
    head = ["workload", "batch", "pages", "warps", "one ms", "scores ms", "scores 4 warps ms", "select ms",
            "one - scores - select ms", "select ids = one's"]
    return "\n".join([
        f"# DSA indexer: one launch vs its parts ({data['device']})", "",
        f"Command: `{command}`", "",
        (f"Seed `{data.get('seed', 'dsa_indexer_one_acc')}` at {data['point']}; medians of {data['iters']} calls "
         f"after {data['warmup']} ({TIMER_WORDS[data['timer']]}; on a CPU the interpreter's times mean nothing)."),
        "",
        md_table(head, rows)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", nargs="*", default=None, help="workload UUIDs (or unique prefixes)")
    ap.add_argument("--shapes", nargs="*", default=None, help="synthetic workloads batch:max_num_pages:num_pages")
    ap.add_argument("--seed", default="dsa_indexer_one_acc", help=f"the seed to split: {', '.join(SELECT_ALONE)}")
    ap.add_argument("--params", nargs="*", default=[], help="seed parameters KEY=VALUE over its defaults")
    add_sweep_options(ap)
    args = ap.parse_args(argv)
    sweep_results("indexer_parts.py", args)
    import torch

    from kernelopt.cli.tasks import assignments
    from kernelopt.operators import load_operator

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        raise SystemExit("indexer_parts.py: no GPU; run with TRITON_INTERPRET=1 (and --shapes of a few rows)")
    op = load_operator(IDX)
    wls = [synthetic(op, s) for s in args.shapes] if args.shapes else pick_workloads(op, args.workloads)
    mod, select, select_warps, point = load_seed_module(args.seed, assignments(args.params, "--params"))
    timer = call_timer(device, args.timer)
    rows = []
    for wl in wls:
        rows.append(measure(mod, select, select_warps, point, wl, device, timer, args.warmup, args.iters))
        print(f"  {rows[-1]}", file=sys.stderr)
    data = {"device": device, "seed": args.seed, "point": point, "warmup": args.warmup, "iters": args.iters, "timer": args.timer,
            "rows": rows}
    write_sweep("indexer_parts.py", argv, args, data, markdown)
    return 0 if all(r["ids_equal"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
