"""GDN decode against a plain copy of its state stream, timed the official way, side by side in one run.

At batch 32-64 the decode is a state stream: 1 MiB of fp32 state read and 1 MiB written per batch row
(q/k/v, the gates and the output add < 1 %). The roofline divides by the 1 GiB copy ceiling
(``benchmarks/measure_ceilings.py``), but a 16-32 MiB stream timed behind the harness's cold-L2 flush
(a zeroed 2 x L2 buffer before every call) may not reach it. This script times, for each batch size,
in rounds (every row once per round, the median over the rounds reported):

* ``copy``: ``new_state.copy_(state)`` - torch's copy kernel on exactly the state bytes;
* ``tile_copy`` / ``tile_copy_ef``: a Triton copy with the decode's grid and program shape (one 1-warp
  program per [8, 128] fp32 tile), plain / with evict-first loads - the stream with no arithmetic;
* ``copy_clean_l2``: the same copy behind a flush that *reads* the 2 x L2 buffer instead of zeroing it,
  so the L2 holds no dirty lines when the copy starts (outside the official protocol: it says what
  writing back the flush's dirty lines costs a stream of this size);
* every ``--solution LABEL=SPEC`` (a Solution JSON, a seed folder, or ``FOLDER@KEY=VALUE,...``), called
  the harness's way (destination-passing);
* ``fla``: flash-linear-attention's fused recurrent decode where ``fla`` imports.

Every row but ``copy_clean_l2`` goes through the harness's ``time_callable`` (the official 10 warm-up
and 50 timed calls, zeroed flush, CUPTI timer on a GPU). Columns: median us, state bytes moved per
second, that as a fraction of the roofline's copy ceiling, and the ratio to ``copy`` (< 1: faster than
the copy). The decode rows are checked against the first solution's output (fla's too:
the bf16 output within 1e-2, the state within atol 1e-4 / rtol 1e-3) so a fast row cannot be a wrong one.

Usage (GPU)::

    python benchmarks/decode_copy_ceiling.py --name <tag>
    python benchmarks/decode_copy_ceiling.py --batches 32,64 --rounds 5 --solution a=<spec> --solution b=<spec>

On a CPU the same rows run through the Triton interpreter (``TRITON_INTERPRET=1``) with the host
clock: plumbing only, the times mean nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import fmt, md_table, operator_and_solution, sweep_results, write_sweep

DEF = "gdn_decode_qk4_v8_d128_k_last"
OPDIR = ROOT / "operators" / DEF
SEEDS = OPDIR / "solutions" / "seeds"
DEFAULT_SOLUTIONS = [
    f"retained={OPDIR / 'retained' / 'solution.json'}",
    f"vtile_w1={SEEDS / 'gdn_decode_vtile'}@BV=8,num_warps=1",
    f"stream_plain={SEEDS / 'gdn_decode_stream'}@LOAD_POLICY=",
    f"stream_ef={SEEDS / 'gdn_decode_stream'}",
    f"stream_ef_sef={SEEDS / 'gdn_decode_stream'}@STORE_POLICY=evict_first",
    f"stream_ef_sel={SEEDS / 'gdn_decode_stream'}@STORE_POLICY=evict_last",
    f"stream_plain_sel={SEEDS / 'gdn_decode_stream'}@LOAD_POLICY=,STORE_POLICY=evict_last",
]
STATE_BYTES_PER_ROW = 8 * 128 * 128 * 4
BUILTIN = ("copy", "tile_copy", "tile_copy_ef", "copy_clean_l2", "fla")


@triton.jit
def _tile_copy_kernel(src, dst, POLICY: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * 1024 + tl.arange(0, 8)[:, None] * 128 + tl.arange(0, 128)[None, :]
    tl.store(dst + offs, tl.load(src + offs, eviction_policy=POLICY))


def tile_copy(state: Any, new_state: Any, evict_first: bool) -> None:
    """``new_state[:] = state`` by one 1-warp Triton program per [8, 128] tile (the decode's grid)."""
    _tile_copy_kernel[(state.numel() // 1024,)](state, new_state, POLICY="evict_first" if evict_first else "",
                                                num_warps=1)


class _ReadFlush:
    """Stands in for the harness's flush buffer: ``zero_()`` reads the buffer instead of writing it."""

    def __init__(self, buf: Any) -> None:
        self.buf = buf

    def zero_(self) -> None:
        import torch

        self.buf.view(torch.int32).sum()  # the read is the point: 2 x L2 of clean lines


def decode_inputs(batch: int, device: str, seed: int = 0) -> dict[str, Any]:
    """The definition's inputs at ``batch`` (keys normalised, small state, moderate gates, as ``inputs.py``)."""
    import torch

    gen = torch.Generator(device="cpu").manual_seed(seed)
    bf = torch.bfloat16

    def rnd(*shape: int) -> Any:
        return torch.randn(*shape, generator=gen)

    k = torch.nn.functional.normalize(rnd(batch, 1, 4, 128), dim=-1)
    cpu = {"q": rnd(batch, 1, 4, 128).to(bf), "k": k.to(bf), "v": rnd(batch, 1, 8, 128).to(bf),
           "state": rnd(batch, 8, 128, 128) * 0.1, "A_log": rnd(8) * 0.1, "a": rnd(batch, 1, 8).to(bf),
           "dt_bias": rnd(8) * 0.1, "b": rnd(batch, 1, 8).to(bf)}
    return {name: t.to(device) for name, t in cpu.items()}


def load_callable(spec: str) -> Any:
    """The entry point of a solution (JSON / seed folder / ``FOLDER@K=V``), built as the harness builds it."""
    from kernelopt.harness.builders import build

    op, sol = operator_and_solution("decode_copy_ceiling", DEF, spec)
    return build(sol, op.definition)


def fla_callable() -> Any | None:
    try:
        sys.path.insert(0, str(ROOT / "operators" / "_baseline_src"))
        import fla_gdn_decode
    except Exception:  # noqa: BLE001
        return None
    return fla_gdn_decode.run


def time_row(fn: Any, device: str, warmup: int, iters: int, clean_l2: bool = False) -> float:
    """Median ms of ``fn()`` under the harness's ``time_callable`` (``clean_l2``: a reading flush)."""
    import torch

    from kernelopt.harness import timing

    if not clean_l2 or device != "cuda":
        times, _ = timing.time_callable(fn, [], warmup=warmup, iterations=iters, device=device)
        return statistics.median(times)
    dev = torch.device(device)
    key = (dev.type, dev.index)  # the harness's key for this device's flush buffer
    real = timing._flush_buffer(dev)
    timing._FLUSH_BUFFERS[key] = _ReadFlush(real)
    try:
        times, _ = timing.time_callable(fn, [], warmup=warmup, iterations=iters, device=device)
    finally:
        timing._FLUSH_BUFFERS[key] = real
    return statistics.median(times)


def batch_rows(batch: int, device: str, calls: dict[str, Any], fla: Any) -> tuple[dict, dict, list]:
    """The rows' callables at ``batch`` (fresh inputs, one output pair per solution), the solutions'
    output tensors and the definition's positional inputs."""
    import torch

    x = decode_inputs(batch, device)
    args = [x["q"], x["k"], x["v"], x["state"], x["A_log"], x["a"], x["dt_bias"], x["b"], 0.0]
    state, new_state = x["state"], torch.empty_like(x["state"])
    fns: dict[str, Any] = {"copy": lambda: new_state.copy_(state),
                           "tile_copy": lambda: tile_copy(state, new_state, False),
                           "tile_copy_ef": lambda: tile_copy(state, new_state, True)}
    if device == "cuda":
        fns["copy_clean_l2"] = fns["copy"]
    outs: dict[str, tuple[Any, Any]] = {}
    for label, run in calls.items():
        out = torch.empty(batch, 1, 8, 128, dtype=torch.bfloat16, device=device)
        ns = torch.empty_like(state)
        outs[label] = (out, ns)
        fns[label] = (lambda run=run, out=out, ns=ns: run(*args, out, ns))
    if fla is not None:
        fns["fla"] = lambda: fla(*args)
    return fns, outs, args


def measure(batches: list[int], solutions: list[tuple[str, str]], rounds: int, warmup: int, iters: int,
            device: str, with_fla: bool = True) -> list[dict[str, Any]]:
    calls = {label: load_callable(spec) for label, spec in solutions}
    fla = fla_callable() if with_fla and device == "cuda" else None
    rows: list[dict[str, Any]] = []
    for batch in batches:
        fns, outs, args = batch_rows(batch, device, calls, fla)
        checks = check_outputs(fns, outs, fla, args)
        samples: dict[str, list[float]] = {label: [] for label in fns}
        for _ in range(rounds):
            for label, fn in fns.items():
                samples[label].append(time_row(fn, device, warmup, iters, clean_l2=label == "copy_clean_l2"))
        copy_ms = statistics.median(samples["copy"])
        for label, ms_list in samples.items():
            ms = statistics.median(ms_list)
            rows.append({"batch_size": batch, "row": label, "ms": ms, "rounds_ms": ms_list,
                         "state_bytes": 2 * batch * STATE_BYTES_PER_ROW,
                         "bytes_per_s": 2 * batch * STATE_BYTES_PER_ROW / (ms * 1e-3) if ms > 0 else None,
                         "vs_copy": ms / copy_ms if copy_ms > 0 else None, "check": checks.get(label)})
            print(f"batch {batch:3d} {label:18s} {ms * 1e3:9.2f} us  x{rows[-1]['vs_copy']:.3f} of copy",
                  file=sys.stderr)
    return rows


def check_outputs(fns: dict[str, Any], outs: dict[str, tuple[Any, Any]], fla: Any, args: list[Any]) -> dict[str, str]:
    """Run each decode row once; compare its outputs with the first solution's (``ok`` or what differs)."""
    import torch

    if not outs:
        return {}
    results: dict[str, tuple[Any, Any]] = {}
    for label, (out, ns) in outs.items():
        fns[label]()
        results[label] = (out.float(), ns)
    if fla is not None:
        o, s = fla(*args)
        results["fla"] = (o.float(), s)
    first = next(iter(outs))
    ref_out, ref_state = results[first]
    verdict = {}
    for label, (out, ns) in results.items():
        out_err = float((out - ref_out).abs().max())
        state_err = float((ns - ref_state).abs().max())
        ok = out_err <= 1e-2 and torch.allclose(ns, ref_state, atol=1e-4, rtol=1e-3)
        verdict[label] = "ok" if ok else f"differs from {first}: output {out_err:.2e}, state {state_err:.2e}"
    return verdict


def markdown(data: dict[str, Any], command: str) -> str:
    ceiling = data.get("copy_ceiling_bytes_per_s")
    lines = ["# GDN decode's state stream vs a plain copy of its bytes (official timing, side by side)", "",
             (f"Command: `{command}`. Device: {data['device']}. Rounds: {data['rounds']} (median over rounds; "
              f"each round times every row with the harness's `time_callable`, {data['warmup']} warm-up + "
              f"{data['iters']} timed calls, the zeroed 2 x L2 flush before each, except `copy_clean_l2` whose "
              "flush reads the buffer). Bytes: the state read + written (2 MiB per batch row)."), ""]
    if ceiling:
        lines.append(f"Copy ceiling of the roofline: {ceiling / 1e12:.2f} TB/s.")
        lines.append("")
    header = ["batch", "row", "us", "TB/s", "of ceiling", "vs copy", "check"]
    body = []
    for r in data["rows"]:
        bw = r["bytes_per_s"]
        body.append([r["batch_size"], r["row"], fmt(r["ms"] * 1e3, ".2f"), fmt(bw / 1e12 if bw else None, ".2f"),
                     fmt(bw / ceiling if bw and ceiling else None, ".3f"), fmt(r["vs_copy"], ".3f"),
                     r["check"] or "-"])
    lines.append(md_table(header, body))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", default="1,8,16,32,48,64", help="comma-separated batch sizes")
    ap.add_argument("--solution", action="append", default=None, metavar="LABEL=SPEC",
                    help="a decode row (repeatable; default: the retained kernel, vtile at 1 warp and the "
                         "gdn_decode_stream policies)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--no-fla", action="store_true")
    ap.add_argument("--name", default=None, help="results file suffix")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results)")
    args = ap.parse_args(argv)
    sweep_results("decode_copy_ceiling.py", args)
    import torch

    from kernelopt.analysis.roofline import load_ceilings

    device = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        batches = [int(b) for b in args.batches.split(",") if b.strip()]
    except ValueError:
        raise SystemExit(f"decode_copy_ceiling: --batches must be integers, got {args.batches!r}") from None
    if not batches or min(batches) < 1:
        raise SystemExit("decode_copy_ceiling: --batches needs at least one batch size >= 1")
    solutions = []
    for item in args.solution or DEFAULT_SOLUTIONS:
        label, eq, spec = item.partition("=")
        if not eq or not label or label in BUILTIN:
            raise SystemExit(f"decode_copy_ceiling: --solution wants LABEL=SPEC with a new label, got {item!r}")
        solutions.append((label, spec))
    name = torch.cuda.get_device_name(0) if device == "cuda" else None
    ceilings = load_ceilings(name) if name else None
    rows = measure(batches, solutions, max(args.rounds, 1), args.warmup, max(args.iters, 1), device,
                   with_fla=not args.no_fla)
    data = {"device": name or "cpu (Triton interpreter, host clock: plumbing only)", "rounds": args.rounds,
            "warmup": args.warmup, "iters": args.iters, "solutions": dict(solutions),
            "copy_ceiling_bytes_per_s": ceilings.copy_bandwidth_bytes_per_s if ceilings else None, "rows": rows}
    write_sweep("decode_copy_ceiling.py", argv, args, data, markdown)
    bad = [r for r in rows if r["check"] not in (None, "ok")]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
