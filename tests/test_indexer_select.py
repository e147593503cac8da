"""The DSA indexer seed's radix top-2048 selections, alone, against torch.topk.

``_radix_select_kernel`` (via the seed's ``select_topk``, ``SELECT="radix"``), the streaming
``_select_row_chunked`` (via ``select_topk_chunked``; the selection ``SELECT="fused"`` runs inside the
scoring kernel), the one-launch seed ``dsa_indexer_one``'s in-register ``_select_row_regs`` (``regs``) and the
seed ``dsa_indexer_coop``'s select shared by R programs per row (``coop4``, ``coop8``: its passes and emission as
launches, as the interpreter runs them; the GPU kernel's spins are checked by that seed's points) and the
seed ``dsa_indexer_bisect``'s select, its threshold by bisection at 1 or 2 bits per round (``bisect1``,
``bisect2``), and the seed ``dsa_indexer_hist``'s, its bisection started from a histogram of the keys' top 8
or 12 bits and stopped once the threshold is isolated (``hist8``, ``hist12``; ``hist0``: the early stop alone)
turn an fp32 score matrix [B, P*64] into the top-``min(2048, seq_len)`` global token ids per row.
Checked on adversarial rows: massive exact ties at the threshold, mixed signs and signed zeros, values that differ only in their lowest bits (every
radix pass decides), -inf tails, garbage past ``seq_len`` (must be ignored), rows shorter than 2048,
exactly 2048 and 2049 live positions, an empty row, and ``seq_len > P*64`` (clamped). For each row the
selected ids must be reachable through the block table, unique, exactly ``min(2048, seq_len)`` of them
followed by -1 padding, and their scores must equal torch.topk's selected scores as a multiset.

The kernel runs in a subprocess with ``TRITON_INTERPRET=1`` set before triton is imported (as in
tests/test_seeds.py); this file is also that subprocess's script: ``python tests/test_indexer_select.py
[cpu|cuda] [radix|chunked|chunked_auto|regs|coop4|coop8|bisect1|bisect2|hist0|hist8|hist12]``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest
from operator_helpers import run_kernel_script, run_on_gpu

REPO = Path(__file__).resolve().parents[1]
KERNEL = (REPO / "operators" / "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64" / "solutions" / "seeds"
          / "dsa_indexer_scores" / "kernel.py")
TOPK = 2048
PAGE = 64


def _run_script(device: str, which: str = "radix") -> dict:
    return run_kernel_script(Path(__file__), [device, which], device, 300)


def test_radix_select_in_interpreter() -> None:
    res = _run_script("cpu")
    assert res["failures"] == [], res["failures"][:10]
    assert res["rows"] >= 30


# coop8: on the GPU only (CPU time)
@pytest.mark.parametrize("which", ["chunked", "chunked_auto", "regs", "coop4", "bisect1", "bisect2", "hist0",
                                   "hist12"])
def test_chunked_select_in_interpreter(which: str) -> None:
    res = _run_script("cpu", which)
    assert res["failures"] == [], res["failures"][:10]
    assert res["rows"] >= 30


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["radix", "chunked", "chunked_auto", "regs", "coop4", "coop8", "bisect1",
                                   "bisect2", "hist0", "hist8", "hist12"])
def test_select_on_gpu(which: str) -> None:
    res = run_on_gpu(Path(__file__), [which], 300)
    assert res["failures"] == [], res["failures"][:10]


# --------------------------------------------------------------------------- subprocess side
def _load_kernel():
    spec = importlib.util.spec_from_file_location("dsa_indexer_scores_select_check", KERNEL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _seed_module(name: str):
    """A seed's entry module, its sources imported as the harness does (the seed's kernel.py imports its linked
    modules relatively)."""
    import tempfile

    from kernelopt.generators.seeds import load_seed
    from kernelopt.harness.build_cache import import_entry_module, materialize

    seed = load_seed(KERNEL.parents[1] / name)
    sol = seed.instantiate(seed.spec.defaults)
    pkg = materialize(sol, "py", Path(tempfile.mkdtemp(prefix=f"{name}_")))
    return import_entry_module(pkg, sol.spec.entry_file)


def _one_seed_select():
    """The one-launch seed's in-register select alone (``dsa_indexer_one``'s ``select_topk_regs``)."""
    return _seed_module("dsa_indexer_one").select_topk_regs


def _bisect_select(bits: int):
    """``dsa_indexer_bisect``'s select alone (its threshold by bisection, BITS bits per round)."""
    mod = _seed_module("dsa_indexer_bisect")
    mod.PARAMS["BITS"] = bits
    return mod.select_topk_bisect


def _hist_select(bits: int):
    """``dsa_indexer_hist``'s select alone (the histogram of the keys' top BITS bits, then the early-stopping
    bisection; 0: no histogram)."""
    mod = _seed_module("dsa_indexer_hist")
    mod.PARAMS["HIST_BITS"] = bits
    return mod.select_topk_hist


def _coop_select(r: int):
    """``dsa_indexer_coop``'s select by R programs per row (its passes and emission as launches)."""
    phases = _seed_module("dsa_indexer_coop").select_topk_phases
    return lambda *a: phases(*a, r)


def _rows(max_pos: int, gen):
    """(label, scores [max_pos] fp32, seq_len) adversarial rows for one score-matrix width."""
    import torch

    inf = float("-inf")

    def tail(x: torch.Tensor, n: int, fill: float = inf) -> torch.Tensor:
        x = x.clone()
        x[n:] = fill
        return x

    n = max_pos
    randn = torch.randn(n, generator=gen)
    ties = torch.randint(0, 4, (n,), generator=gen).float() - 1.5  # 4 values, ~n/4 copies each
    base = torch.full((n,), 1.0)
    low_bits = base + torch.randint(0, 600, (n,), generator=gen).float() * torch.finfo(torch.float32).eps
    mixed = randn * 1e3
    mixed[torch.randperm(n, generator=gen)[: n // 8]] = 0.0
    mixed[torch.randperm(n, generator=gen)[: n // 8]] = -0.0
    extremes = torch.randn(n, generator=gen) * torch.tensor([1e-40, 1e-3, 1.0, 3e38])[
        torch.randint(0, 4, (n,), generator=gen)]
    negative = -torch.rand(n, generator=gen) - 0.5
    # most mass tied exactly at the threshold: 1000 distinct large values, then a sea of one value
    sea = torch.full((n,), 0.25)
    sea[torch.randperm(n, generator=gen)[:1000]] = torch.rand(1000, generator=gen) + 1.0
    rows = [
        ("randn_full", randn, n),
        ("ties_full", ties, n),
        ("low_bits_full", low_bits, n),
        ("mixed_signs_zeros", mixed, n),
        ("extremes", extremes, n),
        ("all_negative", negative, n),
        ("threshold_sea", sea, n),
        ("all_equal", torch.full((n,), 0.5), n),
        ("ties_inf_tail", tail(ties, n - 37), n - 37),
        ("randn_inf_tail_2049", tail(randn, 2049), 2049),
        ("ties_inf_tail_2049", tail(ties, 2049), 2049),
        ("exactly_2048", tail(randn, 2048), 2048),
        ("ties_exactly_2048", tail(ties, 2048), 2048),
        ("short_100", tail(mixed, 100), 100),
        ("single", tail(randn, 1), 1),
        ("empty", torch.full((n,), inf), 0),
        ("garbage_past_seq_len", tail(randn, 3000, fill=1e30), 3000),
        ("seq_len_past_width", randn, n + 500),
    ]
    return [(label, s.float(), L) for label, s, L in rows]


def _check(device: str, which: str) -> dict:
    import torch

    mod = _load_kernel()
    select = {"radix": mod.select_topk,  # chunked: many 512-lane pieces; chunked_auto: as SELECT="fused" (1-2)
              "chunked": lambda *a: mod.select_topk_chunked(*a, chunk=512),
              "chunked_auto": mod.select_topk_chunked,
              "regs": _one_seed_select() if which == "regs" else None,
              "coop4": _coop_select(4) if which == "coop4" else None,
              "coop8": _coop_select(8) if which == "coop8" else None,
              "bisect1": _bisect_select(1) if which == "bisect1" else None,
              "bisect2": _bisect_select(2) if which == "bisect2" else None,
              "hist0": _hist_select(0) if which == "hist0" else None,
              "hist8": _hist_select(8) if which == "hist8" else None,
              "hist12": _hist_select(12) if which == "hist12" else None}[which]
    gen = torch.Generator().manual_seed(20260)
    failures: list[str] = []
    n_rows = 0
    widths = (33, 36, 64, 91, 128)  # 2112..8192 positions: NPAD 4096 and 8192, exact powers too
    if which.startswith("coop") and device == "cpu":  # four launches per select in the interpreter: two widths
        widths = (33, 128)
    for max_pages in widths:
        max_pos = max_pages * PAGE
        rows = _rows(max_pos, gen)
        batch = len(rows)
        scores = torch.stack([s for _, s, _ in rows])
        lens = torch.tensor([L for _, _, L in rows], dtype=torch.int32)
        # distinct pages per row, scattered over a large pool (ids well past 2^16)
        pool = 50_000
        table = torch.stack([torch.randperm(pool, generator=gen)[:max_pages] for _ in range(batch)]).to(torch.int32)
        out = torch.full((batch, TOPK), 12345, dtype=torch.int32)
        d_out = out.to(device)
        select(scores.to(device).contiguous(), lens.to(device), table.to(device), d_out)
        out = d_out.cpu()
        for b, (label, s, seq_len) in enumerate(rows):
            n_rows += 1
            where = f"P={max_pages} row {b} ({label}, seq_len={seq_len})"
            live = min(seq_len, max_pos)
            k = min(TOPK, live)
            ids = out[b].to(torch.int64)
            if not bool((ids[k:] == -1).all()) or bool((ids[:k] < 0).any()):
                failures.append(f"{where}: expected {k} ids then -1 padding, got {int((ids >= 0).sum())} ids, "
                                f"first -1 at {int((ids == -1).nonzero()[0]) if (ids == -1).any() else None}")
                continue
            sel = ids[:k]
            if sel.unique().numel() != k:
                failures.append(f"{where}: duplicate ids")
                continue
            # invert the row's block table: global id -> sequence position
            pos_of = {int(p) * PAGE + o: i * PAGE + o for i, p in enumerate(table[b].tolist()) for o in range(PAGE)}
            try:
                pos = torch.tensor([pos_of[int(t)] for t in sel.tolist()], dtype=torch.int64)
            except KeyError as exc:
                failures.append(f"{where}: id {exc} is not in the row's pages")
                continue
            if k and int(pos.max()) >= live:
                failures.append(f"{where}: selected a position >= seq_len ({int(pos.max())})")
                continue
            want = torch.topk(s[:live], k, sorted=True).values if k else s[:0]
            got = torch.sort(s[pos], descending=True).values
            if not torch.equal(got, want):
                bad = int((got != want).nonzero()[0])
                failures.append(f"{where}: selected scores differ from torch.topk's at rank {bad}: "
                                f"{float(got[bad])!r} vs {float(want[bad])!r}")
    return {"rows": n_rows, "failures": failures}


if __name__ == "__main__":
    _device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    assert (_device == "cpu") == (os.environ.get("TRITON_INTERPRET") == "1"), "cpu runs need TRITON_INTERPRET=1"
    print(json.dumps(_check(_device, sys.argv[2] if len(sys.argv) > 2 else "radix")))
