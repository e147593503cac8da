"""The three kernels of the GDN prefill seed ``gdn_prefill_chunked_wy3v`` one at a time, over launch options.

On the H200 (2026-12-01 call AX, Nsight Compute, 8,192 tokens / 20 sequences) wy3's kernels took 168.5 us (WY prep:
249 registers, 12.5 % occupancy, SM 20.6 %), 229.8 us (state walk) and 149.6 us (output), 550 us against fla's
190 us; wy3v (the same kernels with chunk slots found 64 sequences a step) is the current candidate for the long
band. The prep and output kernels look latency-bound on their register-limited occupancy. This script times each
kernel alone on synthetic inputs of the definition's sizes, so many launch options fit in one short device call:

* ``C`` (chunk), ``BV`` (V tile: the state walk's, or the output kernel's ``BV_O``; ``-`` for the prep kernel),
  ``num_warps``, ``num_stages`` as in the seed's space;
* ``maxnreg``: Triton's per-kernel register cap (two 8-warp programs per SM need <= 128), at the price of spills
  (``n_spills`` of the compiled kernel).

For each configuration: registers and spills, median time of one launch (``--timer``: CUPTI device time with
the L2 flushed by default, or CUDA events; ``--iters`` launches after ``--warmup``) and a check against the first
configuration of the same kernel and ``C`` (largest difference /
largest value of its outputs: a register cap or a warp count must stay at tf32 rounding). A kernel's inputs come
from the previous kernels at the seed's defaults for that ``C``. On a CPU (``TRITON_INTERPRET=1``, few tokens)
only the plumbing and the checks run; times are meaningless and ``maxnreg`` is dropped.

    python benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:20          # the default grid, on the GPU
    python benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:35 --scratch bf16  # gdn_prefill_chunked_wy3b's
    python benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:57 --configs prep,64,-,8,1,- prep,64,-,16,1,-

A configuration is ``KERNEL,C,BV,num_warps,num_stages,maxnreg`` with KERNEL one of prep, prep2, h, o (``-``: none);
``prep2`` is ``gdn_prefill_chunked_wy3h``'s prep (the chunk inverse in two halves; with ``--scratch bf16``, C >= 32),
its ``diff`` taken against the first ``prep`` of the same C.
``--lengths TOTAL:SEQS`` packs SEQS sequences of near-equal lengths; ``--workload UUID`` (a prefix is enough) takes the
sequence lengths of that contest workload instead (a uniformly random split: its longest sequence sets the state
walk's serial chain, e.g. 1,422 of 8,192 tokens in ``546aba8e``, against 410 for near-equal lengths). Writes
``benchmarks/results/gdn_prefill_kernel_sweep_<device>[_<name>].{json,md}``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TIMER_WORDS,
    add_sweep_options,
    call_timer,
    fmt,
    md_table,
    seed_module,
    sweep_attempt,
    sweep_results,
    workloads_by_prefix,
    write_sweep,
)

PREFILL = "gdn_prefill_qk4_v8_d128_k_last"
SEEDS = Path(__file__).resolve().parents[1] / "operators" / PREFILL / "solutions" / "seeds"
SEED = "gdn_prefill_chunked_wy3v"
#: ``--scratch``: the seed whose kernels are timed (wy3b: bf16 W, U, V_new and h, bf16 dots after the prep)
SEEDS_BY_SCRATCH = {"fp32": SEED, "bf16": "gdn_prefill_chunked_wy3b"}
#: the seed whose ``prep2`` (the prep kernel's chunk inverse by halves) is timed; its other kernels are wy3b's own
HALVES_SEED = "gdn_prefill_chunked_wy3h"
KERNELS = ("prep", "prep2", "h", "o")
HQK, HV, D = 4, 8, 128
#: KERNEL, C, BV (None for prep), num_warps, num_stages, maxnreg; the first of each kernel is the seed's default
DEFAULT_CONFIGS = [
    ("prep", 64, None, 8, 1, None), ("prep", 64, None, 16, 1, None), ("prep", 64, None, 8, 1, 168),
    ("prep", 64, None, 8, 1, 128), ("prep", 64, None, 8, 2, None), ("prep", 32, None, 4, 1, None),
    ("prep", 32, None, 8, 1, None), ("prep", 32, None, 4, 1, 128),
    ("h", 64, 32, 8, 1, None), ("h", 64, 64, 8, 1, None), ("h", 64, 64, 8, 2, None), ("h", 64, 128, 8, 1, None),
    ("h", 64, 64, 16, 1, None), ("h", 64, 32, 4, 1, None),
    ("o", 64, 64, 8, 1, None), ("o", 64, 128, 8, 1, None), ("o", 64, 64, 4, 1, None), ("o", 64, 32, 4, 1, None),
    ("o", 64, 64, 8, 1, 128), ("o", 64, 64, 8, 2, None),
]


def parse_config(text: str) -> tuple[str, int, int | None, int, int, int | None]:
    """``KERNEL,C,BV,num_warps,num_stages,maxnreg`` (BV and maxnreg ``-`` for none)."""
    parts = text.split(",")
    if len(parts) != 6 or parts[0] not in KERNELS:
        raise argparse.ArgumentTypeError(f"{text!r}: expected KERNEL,C,BV,num_warps,num_stages,maxnreg with KERNEL "
                                         f"one of {', '.join(KERNELS)}")
    try:
        c, nw, ns = int(parts[1]), int(parts[3]), int(parts[4])
        bv = None if parts[2] in ("-", "") else int(parts[2])
        cap = None if parts[5] in ("-", "") else int(parts[5])
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: integers expected (BV and maxnreg may be '-')") from None
    if c < 16 or c & (c - 1):
        raise argparse.ArgumentTypeError(f"{text!r}: C must be a power of two >= 16")
    if parts[0] == "prep2" and c < 32:
        raise argparse.ArgumentTypeError(f"{text!r}: prep2 (the inverse by halves) needs C >= 32")
    if parts[0].startswith("prep") != (bv is None) or (bv is not None and (bv < 16 or D % bv)):
        raise argparse.ArgumentTypeError(f"{text!r}: BV is '-' for prep, else a divisor of {D} >= 16")
    return parts[0], c, bv, nw, ns, cap


def parse_lengths(text: str) -> list[int]:
    """``TOTAL:SEQS`` -> SEQS near-equal sequence lengths summing to TOTAL."""
    try:
        total, seqs = (int(p) for p in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected TOTAL:SEQS") from None
    if seqs < 1 or total < seqs:
        raise argparse.ArgumentTypeError(f"{text!r}: need 1 <= SEQS <= TOTAL")
    return [total // seqs + (1 if i < total % seqs else 0) for i in range(seqs)]


def lengths_text(text: str) -> str:
    """``TOTAL:SEQS`` checked (:func:`parse_lengths`) and kept as written: an argparse ``type`` for scripts that
    label their rows with it."""
    parse_lengths(text)
    return text


def workload_lengths(prefix: str) -> list[int]:
    """The sequence lengths of the contest workload whose UUID starts with ``prefix`` (its seed-independent
    ``cu_seqlens``, as the harness makes it)."""
    from kernelopt.harness.inputs import describe_inputs, make_inputs
    from kernelopt.operators import load_operator

    op = load_operator(PREFILL)
    (w,) = workloads_by_prefix(op, [prefix], "--workload")
    return list(describe_inputs(op.definition, w, make_inputs(op.definition, w, device="cpu"))["seq_lens"])


def synthetic_inputs(lengths: list[int], dev: str, gen: Any) -> dict[str, Any]:
    """q, k (unit rows), v, gates (a, b, A_log, dt_bias), an initial state and int64 ``cu_seqlens`` on ``dev``."""
    import torch

    bf, n = torch.bfloat16, sum(lengths)
    k = torch.nn.functional.normalize(torch.randn(n, HQK, D, generator=gen), dim=-1)
    vals = {"q": torch.randn(n, HQK, D, generator=gen).to(bf), "k": k.to(bf),
            "v": torch.randn(n, HV, D, generator=gen).to(bf), "a": torch.randn(n, HV, generator=gen).to(bf),
            "b": torch.randn(n, HV, generator=gen).to(bf), "A_log": torch.rand(HV, generator=gen) * 0.5,
            "dt_bias": torch.randn(HV, generator=gen) * 0.1,
            "state": torch.randn(len(lengths), HV, D, D, generator=gen) * 0.05,
            "cu": torch.cumsum(torch.tensor([0, *lengths], dtype=torch.int64), 0)}
    return {key: t.to(dev) for key, t in vals.items()}


def synthetic_outputs(x: dict[str, Any]) -> dict[str, Any]:
    """Output buffers for inputs ``x`` (:func:`synthetic_inputs`): bf16 output rows and fp32 final states."""
    import torch

    n_tok, n_seq = x["q"].shape[0], x["cu"].numel() - 1
    return {"output": torch.empty(n_tok, HV, D, dtype=torch.bfloat16, device=x["q"].device),
            "new_state": torch.empty(n_seq, HV, D, D, dtype=torch.float32, device=x["q"].device)}


def seed_runner(mod: Any, x: dict[str, Any], params: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """``(run, outputs)``: ``run()`` calls a seed module's own ``run`` on inputs ``x`` into ``outputs`` (its checks and
    launches, as the harness calls it), with its ``PARAMS`` set to ``params`` for the call (``None``: as they are)."""
    out = synthetic_outputs(x)

    def call() -> Any:
        return mod.run(x["q"], x["k"], x["v"], x["state"], x["A_log"], x["a"], x["dt_bias"], x["b"], x["cu"],
                       D ** -0.5, out["output"], out["new_state"])

    def run() -> Any:
        if params is None:
            return call()
        saved = dict(mod.PARAMS)
        mod.PARAMS.clear()
        mod.PARAMS.update(params)
        try:
            return call()
        finally:
            mod.PARAMS.clear()
            mod.PARAMS.update(saved)
    return run, out


def _seed_module(seed: str = SEED) -> Any:
    """A seed's ``kernel`` module (a seed folder imports as a package: ``from . import wy3``)."""
    return seed_module(SEEDS, seed)


class _Stages:
    """Each kernel's launch and outputs for one chunk size; the inputs of h and o come from the kernels before
    them at the seed's defaults (kept per C)."""

    def __init__(self, mod: Any, x: dict[str, Any], chunk: int, interpret: bool, scratch: str = "fp32") -> None:
        import torch

        self.mod, self.x, self.c, self.interpret = mod, x, chunk, interpret
        # bf16 scratch (wy3b): its buffer dtype and kernel flags, as the seed's own run sets them
        self.low = mod.low_flags("bf16") if scratch == "bf16" else {}
        self.dtype = mod.scratch_dtype("bf16") if scratch == "bf16" else torch.float32
        self.n_tok, self.n_seq = x["q"].shape[0], x["cu"].numel() - 1
        self.slots = -(-self.n_tok // chunk) + self.n_seq
        self.inputs: dict[str, Any] = {}
        self.launch("prep", None, 8, 1, None, keep=True)
        self.launch("h", 32, 8, 1, None, keep=True)

    def empty(self, *shape: int, scratch: bool = False) -> Any:
        """Zero-filled output (fp32, or the scratch dtype): slots past a sequence's last chunk are never written,
        and must compare equal."""
        import torch

        return torch.zeros(shape, dtype=self.dtype if scratch else torch.float32, device=self.x["q"].device)

    def launch(self, kernel: str, bv: int | None, warps: int, stages: int, cap: int | None,
               keep: bool = False) -> tuple[Any, Any, dict[str, Any]]:
        """``(run, compiled kernel of the first run, outputs)``: ``run()`` launches once more into the same
        outputs."""
        import torch

        m, x, c = self.mod, self.x, self.c
        opts: dict[str, Any] = {"num_warps": warps, "num_stages": stages}
        if cap is not None and not self.interpret:
            opts["maxnreg"] = cap
        meta = {"HQK": HQK, "HV": HV, "D": D, "C": c, "PRECISION": "tf32"}
        if kernel.startswith("prep"):
            prep = m._prep_halves_kernel if kernel == "prep2" else m._prep_kernel
            out = {"w": self.empty(self.n_tok, HV, D, scratch=True), "u": self.empty(self.n_tok, HV, D, scratch=True),
                   "gamma": self.empty(self.n_tok, HV)}

            def run() -> Any:
                return prep[(self.slots, HV)](
                    x["k"], x["v"], x["A_log"], x["a"], x["dt_bias"], x["b"], x["cu"], out["w"], out["u"],
                    out["gamma"], self.n_seq, LOG2C=c.bit_length() - 1, **meta, **opts)
        elif kernel == "h":
            p = self.inputs
            out = {"h": self.empty(self.slots, HV, D, D, scratch=True),
                   "v_new": self.empty(self.n_tok, HV, D, scratch=True), "state": self.empty(self.n_seq, HV, D, D)}

            def run() -> Any:
                return m._h_kernel[(self.n_seq * HV, D // bv)](
                    x["k"], p["w"], p["u"], p["gamma"], x["state"], x["cu"], out["h"], out["v_new"], out["state"],
                    BV=bv, HAS_STATE=True, **meta, **self.low, **opts)
        else:
            p = self.inputs
            out = {"o": torch.zeros(self.n_tok, HV, D, dtype=torch.bfloat16, device=x["q"].device)}

            def run() -> Any:
                return m._o_kernel[(self.slots, HV, D // bv)](
                    x["q"], x["k"], p["v_new"], p["gamma"], p["h"], x["cu"], out["o"], D ** -0.5, self.n_seq,
                    BV=bv, **meta, **self.low, **({"LOW_H": True} if self.low else {}), **opts)
        compiled = run()
        if keep:
            self.inputs.update(out)
        return run, compiled, out


def _rel_diff(out: dict[str, Any], ref: dict[str, Any]) -> float:
    """Largest |difference| / largest |value| over the outputs (NaN when either has a non-finite value)."""
    worst = 0.0
    for key, r in ref.items():
        got, r = out[key].float(), r.float()
        if not (got.isfinite().all() and r.isfinite().all()):
            return float("nan")
        worst = max(worst, float((got - r).abs().max()) / max(float(r.abs().max()), 1e-30))
    return worst


def _measure(stages: dict[int, _Stages], setup: tuple[Any, ...], timer: Any, args: argparse.Namespace,
             config: tuple[Any, ...]) -> tuple[Any, dict[str, Any], float]:
    """One configuration: ``(compiled kernel, outputs, median ms)``; the chunk's stages are built on first use
    (``setup``: seed module, inputs, interpreter flag, scratch dtype)."""
    kernel, c, bv, nw, ns, cap = config
    if c not in stages:
        mod, x, interpret, scratch = setup
        stages[c] = _Stages(mod, x, c, interpret, scratch)
    run, compiled, out = stages[c].launch(kernel, bv, nw, ns, cap)
    return compiled, out, timer(run, args.warmup, args.iters)


def sweep(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    interpret = os.environ.get("TRITON_INTERPRET") == "1"
    if dev == "cpu" and not interpret:
        raise SystemExit("gdn_prefill_kernel_sweep.py: no GPU; run with TRITON_INTERPRET=1 (and few tokens)")
    seed = SEEDS_BY_SCRATCH[args.scratch]
    if any(c[0] == "prep2" for c in args.configs):
        if args.scratch != "bf16":
            raise SystemExit("gdn_prefill_kernel_sweep.py: prep2 configurations need --scratch bf16 (wy3h is wy3b's)")
        seed = HALVES_SEED
    mod = _seed_module(seed)
    x = synthetic_inputs(args.lengths, dev, torch.Generator().manual_seed(11))
    timer = call_timer(dev, args.timer)
    stages: dict[int, _Stages] = {}
    first: dict[tuple[str, int], dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    for kernel, c, bv, nw, ns, cap in args.configs:
        row: dict[str, Any] = {"kernel": kernel, "C": c, "BV": bv, "num_warps": nw, "num_stages": ns, "maxnreg": cap}
        got = sweep_attempt(row, rows, _measure, stages, (mod, x, interpret, args.scratch), timer, args,
                            (kernel, c, bv, nw, ns, cap))
        if got is None:
            continue
        compiled, out, ms = got
        if dev == "cuda":
            torch.cuda.synchronize()
        ref = first.setdefault(("prep" if kernel == "prep2" else kernel, c), {k: v.clone() for k, v in out.items()})
        row.update(ms=ms, n_regs=getattr(compiled, "n_regs", None), n_spills=getattr(compiled, "n_spills", None),
                   max_rel_diff=_rel_diff(out, ref))
        rows.append(row)
        print(f"  {kernel} C {c} BV {bv} warps {nw} stages {ns} maxnreg {cap}: {ms:.4f} ms, regs {row['n_regs']} "
              f"spills {row['n_spills']}, diff {row['max_rel_diff']:.1e}", file=sys.stderr)
    return {"device": dev, "seed": seed, "scratch": args.scratch, "workload": args.workload, "lengths": args.lengths,
            "tokens": sum(args.lengths), "sequences": len(args.lengths), "warmup": args.warmup, "iters": args.iters,
            "timer": args.timer, "configs": rows}


def markdown(data: dict[str, Any], command: str) -> str:
    lines = [(f"# GDN prefill kernels alone ({data['seed']}, {data['device']}, {data['tokens']} tokens / "
              f"{data['sequences']} sequences, longest {max(data['lengths'])}"
              + (f": workload {data['workload']}" if data.get("workload") else "") + ")"), "",
             f"Command: `{command}`", "",
             (f"Median of one launch ({TIMER_WORDS[data.get('timer', 'cuda_event')]}), synthetic inputs; each "
              "kernel's inputs from the kernels before it at the seed's defaults. `diff`: largest difference / largest "
              "value of its outputs "
              "against the first configuration of the same kernel and C."), ""]
    rows = [[c["kernel"], c["C"], c["BV"] or "-", c["num_warps"], c["num_stages"], c["maxnreg"] or "-",
             c.get("n_regs", "-"), c.get("n_spills", "-"), fmt(c.get("ms")), fmt(c.get("max_rel_diff"), ".1e"),
             c.get("error", "")] for c in data["configs"]]
    lines.append(md_table(["kernel", "C", "BV", "warps", "stages", "maxnreg", "regs", "spills", "ms", "diff",
                           "error"], rows))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lengths", type=parse_lengths, default=parse_lengths("8192:20"), metavar="TOTAL:SEQS",
                   help="packed sequences (default 8192:20, the contest's 8,192-token workload with 20 sequences)")
    p.add_argument("--scratch", choices=sorted(SEEDS_BY_SCRATCH), default="fp32",
                   help="fp32: wy3v's kernels (default); bf16: gdn_prefill_chunked_wy3b's (bf16 scratch and dots)")
    p.add_argument("--configs", nargs="+", type=parse_config, default=DEFAULT_CONFIGS,
                   metavar="KERNEL,C,BV,WARPS,STAGES,MAXNREG")
    p.add_argument("--workload", default=None, metavar="UUID",
                   help="take the sequence lengths of this contest workload (UUID or a unique prefix) instead of "
                        "--lengths")
    add_sweep_options(p)
    args = p.parse_args(argv)
    sweep_results("gdn_prefill_kernel_sweep.py", args)
    if args.workload:
        args.lengths = workload_lengths(args.workload)
    write_sweep("gdn_prefill_kernel_sweep.py", argv, args, sweep(args), markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
