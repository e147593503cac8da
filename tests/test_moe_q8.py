"""The MoE seed ``moe_grouped_fp8_q8`` (FP8 intermediate, both GEMMs on FP8 dots) against a dense fp32 torch
computation of the same layer, at small hidden / intermediate sizes (its ``run`` takes any multiple of the
128 scale block; the definition's full 7168 / 2048 needs ~40 GiB in the interpreter and runs with the GPU
points). Checked: the output within the FP8 intermediate's error (e4m3: <= 2^-4 relative per element; 3-5 % of
the output norm seen in the interpreter, whose fp32 -> fp8 casts truncate; 8 % allowed), tokens
routed to no local expert exactly 0, each GEMM1 scale group's largest |q| at the e4m3 maximum (the scale is
that group's amax / 448), and a BLOCK_N that straddles a W2 scale block refused with a clear message. The seeds
over q8 run the same checks, each call twice (their fused launches' counters and flags must be ready for the next
call): q8rt (routing and tile table in one launch; the long calls' GPU tile table, also checked entry for entry
against q8's torch one), q8rg (the routing inside GEMM1's launch), q8ex (the long calls' GEMM grids over the tiles
that exist; GEMM2's rows in bf16), q8sw (the GEMMs' programs in groups of tiles), q8pe (the long calls' GEMMs
as persistent programs stopping at the first tile without rows), q8td (the long calls' GEMMs loading through
tensor descriptors), q8tc (q8td with the exact grid's tile count read as one copy of the table), q8tw (q8tc
with GEMM2 at its own warp count and one W2 scale per K step) and q8rd (q8rg over q8tw, the short calls' GEMM2 on
q8tw's descriptor kernel), q8hp (q8tw with the long calls' host side as one plan per call shape) and q8s2 (q8hp
with the long calls' GEMM2 at its own pipeline stages) and q8sk (q8rg with the short calls' GEMM1 split over H, its
output within 1 % of SPLIT_K=1's and its split counts back at 0 after each call) and q8cf (q8rg with the short calls'
combine inside GEMM2's launch: its output FUSED_COMBINE_UPTO=0's to a bf16 rounding flip, its counts back at 0) and
q8bp (q8rg with the short calls' launches bound in a plan per call shape: its second call, on the plan, equal to the
first, q8rg's, bit for bit; the plan's three launches taken).
This file is also the subprocess's script (``TRITON_INTERPRET=1`` must be set before triton is imported).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import pytest
from operator_helpers import load_script, run_kernel_script, run_on_gpu
from retained_sets import marked, superseded_seed

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "operators" / "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048" / "solutions" / "seeds"
CASES = [  # T, local_expert_offset, H, I, params
    (5, 0, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2}),
    (40, 96, 256, 256, {"BLOCK_M": 32, "BLOCK_N": 128, "BLOCK_N2": 256, "num_warps": 4, "num_stages": 3}),
    (23, 224, 384, 128, {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2}),
    # LAUNCH="fast" (fastlaunch.py; in the interpreter every launch takes the JIT path: this checks the wiring)
    (9, 32, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2,
                       "LAUNCH": "fast"}),
]


# moe_grouped_fp8_q8rt: q8 with the routing and the tile table in one launch (the last token's program builds the
# table): the same cases, one more with the fusion off, and every case called twice (the counter resets)
SEED_CASES = {"moe_grouped_fp8_q8": CASES,
              "moe_grouped_fp8_q8rt": CASES + [(6, 64, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128,
                                                                  "num_warps": 4, "FUSE_TILES": 0}),
                                               # 1,600 pairs: the long calls' GPU tile table (two chunks)
                                               (200, 160, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128,
                                                                     "num_warps": 4, "LAUNCH": "fast"})],
              # moe_grouped_fp8_q8rg: q8rt with the short calls' routing and tile table inside GEMM1's launch (the
              # interpreter runs its two planes as two launches): short calls at two tile shapes, one unfused
              "moe_grouped_fp8_q8rg": CASES[:1] + CASES[3:] + [
                  (80, 96, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                      "LAUNCH": "fast"}),
                  (6, 64, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                     "FUSE_GEMM1": 0})],
              # moe_grouped_fp8_q8sk: q8rg with the short calls' GEMM1 split over H (SPLIT_K shares; the last to finish
              # sums the partials): even and uneven shares of H's K blocks, one share (q8rg) and the unfused path (no
              # split); each split output also against the same call at SPLIT_K=1 (fp32 sums in another order)
              "moe_grouped_fp8_q8sk": [
                  (5, 0, 512, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2,
                                    "SPLIT_K": 4}),
                  (9, 32, 512, 128, {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 4,
                                     "LAUNCH": "fast", "SPLIT_K": 3}),
                  (6, 64, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "SPLIT_K": 1}),
                  (6, 64, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "FUSE_GEMM1": 0,
                                     "SPLIT_K": 2})],
              # moe_grouped_fp8_q8cf: q8rg with the short calls' combine inside GEMM2's launch (the token's last pair's
              # program sums its rows): fused at 5 / 9 / 23 tokens (offsets 96 / 224: tokens with no local expert), at
              # 40 tokens above FUSED_COMBINE_UPTO (q8rg's launches), and behind the unfused GEMM1
              "moe_grouped_fp8_q8cf": [
                  (5, 0, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2,
                                    "FUSED_COMBINE_UPTO": 16}),
                  (9, 96, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                     "LAUNCH": "fast", "FUSED_COMBINE_UPTO": 16}),
                  (23, 224, 384, 128, {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2,
                                       "FUSED_COMBINE_UPTO": 80}),
                  (40, 96, 256, 256, {"BLOCK_M": 32, "BLOCK_N": 128, "BLOCK_N2": 256, "num_warps": 4, "num_stages": 3,
                                      "FUSED_COMBINE_UPTO": 16}),
                  (6, 64, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "FUSE_GEMM1": 0,
                                     "FUSED_COMBINE_UPTO": 16})],
              # moe_grouped_fp8_q8bp: q8rg with the short calls' host side as one plan per call shape (launches bound to
              # the compiled kernels): short calls at 5 / 9 / 80 tokens (each case's second call runs on the plan and
              # must equal the first, q8rg's), a long call and the unfused GEMM1 (q8rg's path)
              "moe_grouped_fp8_q8bp": [
                  (5, 0, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2}),
                  (9, 32, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                     "LAUNCH": "fast"}),
                  (80, 96, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                      "LAUNCH": "fast"}),
                  (200, 160, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                        "LAUNCH": "fast"}),
                  (6, 64, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                     "FUSE_GEMM1": 0})],
              # moe_grouped_fp8_q8ex: q8rt with the long calls' GEMM grids over the tiles that exist (one host sync):
              # long calls on both tile tables (its short calls are q8rt's, checked above)
              "moe_grouped_fp8_q8ex": [
                  (200, 160, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                        "LAUNCH": "fast"}),
                  (150, 32, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                       "LONG_TILES": "torch", "Y_BF16": 1})],
              # moe_grouped_fp8_q8sw: q8ex with the GEMMs' programs in groups of tiles (short last groups), under Y_BF16
              "moe_grouped_fp8_q8sw": [
                  (200, 160, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                        "LAUNCH": "fast", "GROUP_T": 3, "GROUP_T2": 5, "Y_BF16": 1})],
              # moe_grouped_fp8_q8pe: q8ex with the long calls' GEMMs as persistent programs that stop at the first
              # tile without rows (the interpreter assumes 4 SMs: every program walks several tiles)
              "moe_grouped_fp8_q8pe": [
                  (200, 160, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                        "LAUNCH": "fast", "WAVES": 1}),
                  (150, 32, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                       "LONG_TILES": "torch", "Y_BF16": 1, "WAVES": 2})],
              # moe_grouped_fp8_q8td: q8ex with the long calls' GEMMs reading weights (and GEMM2 its intermediate)
              # through tensor descriptors, GEMM1's activations permuted first and read so too (A_SORTED, the first
              # case) or gathered by token (the second); in the interpreter q8ex's output (TMA=0) to a bf16
              # rounding flip
              "moe_grouped_fp8_q8td": [
                  (200, 160, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                        "LAUNCH": "fast"}),
                  (150, 32, 384, 256, {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 4,
                                       "LONG_TILES": "torch", "Y_BF16": 1, "A_SORTED": 0}),
                  # PERSIST: both GEMMs persistent over the bound grid (4 SMs assumed: each program walks tiles)
                  (200, 96, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                       "LAUNCH": "fast", "PERSIST": 1, "LONG_GRID": "bound"})],
              # moe_grouped_fp8_q8tc: q8td with the exact grid's tile count read as one copy of the tile table (the
              # exact grid is checked below), gathering and permuting the activations
              "moe_grouped_fp8_q8tc": [
                  (200, 160, 256, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4}),
                  (130, 32, 384, 256, {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 4,
                                       "A_SORTED": 1, "Y_BF16": 0})],
              # moe_grouped_fp8_q8tw: q8tc with GEMM2 at its own warps and one W2 scale per K step (BLOCK_N2 <= 128;
              # 256: q8td's outer product); in the interpreter q8ex's output (TMA=0) to a bf16 rounding flip
              "moe_grouped_fp8_q8tw": [
                  (200, 160, 384, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                        "NUM_WARPS2": 4, "ROUTE_WARPS": 1}),
                  (130, 32, 512, 256, {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_N2": 256, "num_warps": 4,
                                       "NUM_WARPS2": 0, "Y_BF16": 0, "ROUTE_WARPS": 0})],
              # moe_grouped_fp8_q8rd: q8rg over q8tw, the short calls' GEMM2 on q8tw's descriptor kernel at its own
              # warps (two short calls, fused and not, fp32 and bf16 rows; a long call: q8tw's path); in the
              # interpreter the pointer kernel's output (TMA2_SHORT=0; TMA=0 for the long call) to a bf16 rounding flip
              "moe_grouped_fp8_q8rd": [
                  (5, 0, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 2,
                                    "SHORT_WARPS2": 8, "Y_BF16": 0}),
                  (80, 96, 384, 256, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                      "LAUNCH": "fast", "SHORT_WARPS2": 0, "FUSE_GEMM1": 0, "SHORT_STAGES2": 3}),
                  # the pointer kernel at its own stages
                  (40, 32, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_N2": 64, "num_warps": 4,
                                      "num_stages": 3, "TMA2_SHORT": 0, "SHORT_STAGES2": 4}),
                  (130, 32, 384, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4})],
              # moe_grouped_fp8_q8hp: q8tw with the long calls' host side as one plan per call shape (HOST_PATH="lean"):
              # the plan built once for the case's two calls, its grid the exact / bound one, its output q8tw's bit for
              # bit (HOST_PATH="layered")
              "moe_grouped_fp8_q8hp": [
                  (200, 160, 384, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4,
                                        "NUM_WARPS2": 4, "ROUTE_WARPS": 1}),
                  (130, 32, 256, 256, {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 4,
                                       "NUM_WARPS2": 0, "Y_BF16": 0, "LONG_GRID": "bound"})],
              # moe_grouped_fp8_q8s2: q8hp with the long calls' GEMM2 at its own stages (STAGES2): the plan's GEMM2 bound
              # at them, GEMM1 at num_stages, the output q8hp's (STAGES2=0) bit for bit
              "moe_grouped_fp8_q8s2": [
                  (200, 160, 384, 128, {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_N2": 128, "num_warps": 4, "num_stages": 3,
                                        "STAGES2": 2})]}
# moe_grouped_fp8_q8gl: q8s2 with both long GEMMs on Gluon kernels where the device runs them (sm_90 with Gluon); in the
# interpreter (and GLUON=0) q8s2's plan itself: q8s2's long case, the plan's GEMMs checked to be the ones for the device.
# GLUON=1 where the Gluon GEMMs take it (gluon_gemms.refusal: BLOCK_M 64, BLOCK_N 128, at least as many K blocks as
# ring buffers: I 256 for GEMM2's two), GLUON=0 at q8s2's own case
SEED_CASES["moe_grouped_fp8_q8gl"] = [
    (200, 160, 384, 256, {**SEED_CASES["moe_grouped_fp8_q8s2"][0][4], "BLOCK_M": 64, "BLOCK_N": 128, "num_warps": 8,
                          "GLUON": 1, "GLUON_STAGES": 3, "GLUON_STAGES2": 2}),
    (200, 160, 384, 128, {**SEED_CASES["moe_grouped_fp8_q8s2"][0][4], "GLUON": 0})]
# (T, local_expert_offset, BLOCK_M): q8rt's long-call tile table (a counting sort in two launches) against q8's torch
# one, entry for entry; 1 to 11 chunks of 1,024 pairs
TILE_CASES = [(129, 0, 64), (400, 96, 16), (1300, 224, 32), (260, 32, 128)]


@pytest.mark.parametrize("seed", [marked(s, superseded=superseded_seed(SEEDS / s), test_id=s)
                                  for s in sorted(SEED_CASES)])
def test_fp8_intermediate_pipeline_matches_dense_fp32_in_interpreter(seed: str) -> None:
    res = run_kernel_script(Path(__file__), ["cpu", seed], "cpu", 900)
    assert res["failures"] == [], res["failures"]
    assert res["cases"] == len(SEED_CASES[seed]) and res["refused"]


@pytest.mark.gpu
@pytest.mark.parametrize("seed", sorted(SEED_CASES))
def test_fp8_intermediate_pipeline_matches_dense_fp32_on_gpu(seed: str) -> None:
    res = run_on_gpu(Path(__file__), timeout=900, args=[seed])
    assert res["failures"] == [], res["failures"]


def test_long_call_tile_table_equals_the_torch_one_in_interpreter() -> None:
    res = run_kernel_script(Path(__file__), ["cpu", "tiles"], "cpu", 600)
    assert res["failures"] == [] and res["cases"] == len(TILE_CASES), res


@pytest.mark.gpu
def test_long_call_tile_table_equals_the_torch_one_on_gpu() -> None:
    res = run_on_gpu(Path(__file__), timeout=600, args=["tiles"])
    assert res["failures"] == [] and res["cases"] == len(TILE_CASES), res


def _check_tiles(dev: str) -> dict:
    import torch

    sys.path.insert(0, str(SEEDS))
    mod = importlib.import_module("moe_grouped_fp8_q8rt.kernel")
    gen = torch.Generator().manual_seed(5)
    failures = []
    for t, offset, bm in TILE_CASES:
        ids = torch.randint(0, 256, (t, 8), generator=gen, dtype=torch.int32).to(dev)
        got, want = mod._tiles_triton(ids, offset, bm), mod._torch_tiles(ids, offset, bm)
        for name, a, b in zip(("order", "table", "pos"), got, want):
            if not torch.equal(a.cpu(), b.cpu()):
                failures.append(f"T={t} offset={offset} BLOCK_M={bm}: {name} differs at "
                                f"{int((a.cpu() != b.cpu()).reshape(len(a), -1).any(1).sum())} rows")
        if got[3] != want[3]:
            failures.append(f"T={t}: n_tiles {got[3]} vs {want[3]}")
    return {"cases": len(TILE_CASES), "failures": failures}


def _fused_launch_failures(mod, seed, params, t, device, where):  # type: ignore[no-untyped-def]
    """The fused launch ran and left its counters ready for the next call: q8rt's (and q8ex's) routing count back
    at 0; q8rg's routing count at 0 and its flag at the epoch of the call's last fused launch."""
    if seed == "moe_grouped_fp8_q8" or not params.get("FUSE_TILES", 1):
        return []
    if seed.endswith("q8cf") and t <= int(params.get("FUSED_COMBINE_UPTO", 0)):
        counts = mod._COUNTS.get(device)
        if counts is None or int(counts.abs().sum()) != 0:
            return [f"{where}: the fused combine not taken or its counts not back at 0 ({counts})"]
    if seed.endswith("q8bp") and params.get("FUSE_GEMM1", 1) and t * 8 <= mod.TILES_MAX_PAIRS:
        plans = [p for p in mod.PLANS.plans.values() if p.t == t and p.device == device]
        if len(plans) != 1 or plans[0].combine.launches != 1 or plans[0].gemm2.launches != 1:
            return [(f"{where}: the short-call plan not built once and taken by the second call "
                    f"({[(p.t, p.gemm2.launches, p.combine.launches) for p in plans]})")]
    if seed in ("moe_grouped_fp8_q8rg", "moe_grouped_fp8_q8rd", "moe_grouped_fp8_q8sk", "moe_grouped_fp8_q8cf",
                "moe_grouped_fp8_q8bp"):
        rg = getattr(mod, "_rg", mod)  # q8rd, q8sk, q8cf, q8bp: their package's q8rg module
        if not params.get("FUSE_GEMM1", 1) or t * 8 > rg.TILES_MAX_PAIRS:
            return []
        buf, n = rg._SYNC.get(device, (None, 0))
        want = [0, rg.EPOCHS[(n - 1) % len(rg.EPOCHS)]]
        if buf is None or buf.tolist() != want:
            return [f"{where}: routing-in-GEMM1 launch not taken or its sync buffer {buf} is not {want}"]
        split = getattr(mod, "_SCRATCH", {}).get(device)
        if seed.endswith("q8sk") and (split is None or int(split[1].abs().sum()) != 0):
            return [f"{where}: the split GEMM1's scratch not taken or its counts not back at 0"]
        return []
    count = _part(mod, "_rt")._COUNTS.get(device)  # q8rt's counter (the seeds over it reach their copy)
    if count is None or int(count.item()) != 0:
        return [f"{where}: fused routing launch not taken or its counter not reset ({count})"]
    return []


def _exact_grid_failures(mod, ids, offset: int, bm: int, where: str) -> list[str]:  # type: ignore[no-untyped-def]
    """q8ex's long-call grid: the tiles with rows are the table's first entries and the grid covers exactly them."""
    _order, table, _pos, n_tiles = mod._q8._tiles(ids, offset, bm)
    rows = table[:, 2].cpu()
    live = int((rows > 0).sum())
    if n_tiles != max(live, 1) or bool((rows[:live] == 0).any()):
        return [f"{where}: exact grid {n_tiles} over {live} tiles with rows (rows {rows.tolist()[:live + 2]})"]
    return []


def _lean_path_failures(mod, built: int, args: tuple, out, ids, params: dict,  # type: ignore[no-untyped-def]
                        where: str) -> list[str]:
    """q8hp's long calls: one plan built for the case's two calls, each launch issued twice, the GEMMs' grid the
    tiles with rows (exact) or the bound, the output q8tw's (``HOST_PATH="layered"``) bit for bit."""
    import torch

    failures = []
    plan = _last_plan(mod)
    launches = [b.launches for b in (plan.route, plan.count_plan, plan.place, plan.gemm1, plan.gemm2, plan.combine)]
    if mod.PLANS.built != built + 1 or launches != [2] * 6:
        failures.append(f"{where}: {mod.PLANS.built - built} plans built, launches {launches} (want 1, 2 each)")
    _order, table, _pos, bound = mod._q8._tiles(ids, args[8], params["BLOCK_M"])
    want = bound if params.get("LONG_GRID") == "bound" else max(int((table[:, 2] > 0).sum()), 1)
    if plan.last_tiles != want:
        failures.append(f"{where}: the plan's grid {plan.last_tiles} tiles, want {want}")
    mod.PARAMS["HOST_PATH"] = "layered"
    layered = torch.empty_like(out)
    mod.run(*args, layered)
    mod.PARAMS["HOST_PATH"] = "lean"
    if not torch.equal(layered, out):
        failures.append(f"{where}: HOST_PATH=lean differs from layered by {(layered.float() - out.float()).abs().max()}")
    return failures


def _stages2_failures(mod, args: tuple, out, where: str) -> list[str]:  # type: ignore[no-untyped-def]
    """q8s2's long calls: the plan's GEMM2 at STAGES2 stages and GEMM1 at num_stages, the output the one at STAGES2=0
    (q8hp's: the same kernels) bit for bit."""
    import torch

    plan = _last_plan(mod._hp)
    got = [(b.kw["NUM_STAGES"], b.kw["num_stages"]) for b in (plan.gemm1, plan.gemm2)]
    want = [(mod.PARAMS["num_stages"],) * 2, (mod.PARAMS["STAGES2"],) * 2]
    failures = [] if got == want else [f"{where}: GEMM1 / GEMM2 bound at stages {got}, want {want}"]
    stages2 = mod.PARAMS["STAGES2"]
    mod.PARAMS["STAGES2"] = 0
    same = torch.empty_like(out)
    mod.run(*args, same)
    mod.PARAMS["STAGES2"] = stages2
    if not torch.equal(same, out):
        failures.append(f"{where}: STAGES2={stages2} differs from STAGES2=0")
    return failures


def _last_plan(hp):  # type: ignore[no-untyped-def]
    """The long plan built last by ``hp``, a module holding q8hp's plan cache (``PLANS``)."""
    return next(reversed(hp.PLANS.plans.values()))


def _part(mod, name: str):  # type: ignore[no-untyped-def]
    """The seed's copy of one of the modules under it (``_rt``, ``_q8``): the seed module's attribute, else q8s2's
    (q8gl is built over q8s2), else the seed module itself."""
    return getattr(mod, name, getattr(getattr(mod, "_s2", mod), name, mod))


def _gluon_planned(mod) -> bool:  # type: ignore[no-untyped-def]
    """Whether q8gl's last long plan runs its GEMMs on the Gluon kernels."""
    plan = _last_plan(mod._hp)
    return isinstance(plan.gemm1, mod._gl.Gemm1) and isinstance(plan.gemm2, mod._gl.Gemm2)


def _gluon_plan_failures(mod, params: dict, device, where: str) -> list[str]:  # type: ignore[no-untyped-def]
    """q8gl's long plan: on the Gluon kernels exactly where GLUON=1 and the device runs them (a CUDA device of
    compute capability 9.x with Gluon; never in the interpreter), else q8s2's."""
    import os

    want = bool(params["GLUON"]) and not os.environ.get("TRITON_INTERPRET") and mod._gl.usable(device)
    got = _gluon_planned(mod)
    return [] if got == want else [f"{where}: long plan on Gluon kernels {got}, want {want}"]


def _count_persistent_launches(mod) -> list[int]:  # type: ignore[no-untyped-def]
    """q8pe: record the programs per N block of each persistent GEMM launch (its launch table looks the sizing
    function up in the module on every launch)."""
    programs: list[int] = []
    size = getattr(mod, "_persistent_programs_unwrapped", mod.persistent_programs)
    mod._persistent_programs_unwrapped = size

    def counted(n_tiles, n_blocks, device):  # type: ignore[no-untyped-def]
        programs.append(size(n_tiles, n_blocks, device))
        return programs[-1]

    mod.persistent_programs = counted
    return programs


def _persistent_failures(mod, ids, offset: int, bm: int, programs: list[int],  # type: ignore[no-untyped-def]
                         where: str) -> list[str]:
    """q8pe's long calls: both GEMMs launched persistent (twice each: the call runs twice) and the tiles with rows
    the table's first entries; in the interpreter (4 SMs assumed) fewer programs per N block than tiles with rows, so
    each walks several (on a GPU, 132 SMs give these small calls a program per tile: call BZ)."""
    _order, table, _pos, _n = mod._q8._tiles(ids, offset, bm)
    rows = table[:, 2].cpu()
    live = int((rows > 0).sum())
    if bool((rows[:live] == 0).any()):
        return [f"{where}: tiles with rows are not the table's first entries (rows {rows.tolist()})"]
    if len(programs) != 4 or (ids.device.type == "cpu" and max(programs) >= live):
        return [(f"{where}: persistent launches {programs} over {live} tiles with rows (want 4, in the interpreter "
                 f"each < {live})")]
    return []


def _record_launches(holder, attr: str, seen: list | None = None) -> list[dict]:  # type: ignore[no-untyped-def]
    """The keyword arguments the launcher ``holder.<attr>`` receives (q8tw's routing under its ``ROUTE_WARPS``
    wrapper, q8rd's short GEMM2 kernels), recorded from this call on into ``seen`` (a new list by default)."""
    seen = [] if seen is None else seen
    key = f"recorded_{attr}"
    inner = getattr(holder, key, getattr(holder, attr))
    setattr(holder, key, inner)

    class _Recorder:
        def __getitem__(self, grid):  # type: ignore[no-untyped-def]
            def launch(*args, **kw):  # type: ignore[no-untyped-def]
                seen.append(kw)
                return inner[grid](*args, **kw)
            return launch

    setattr(holder, attr, _Recorder())
    return seen


def _inputs(t: int, h: int, i: int, dev: str, gen):  # type: ignore[no-untyped-def]
    """The layer's inputs at H / I (``benchmarks/moe_gemm1_sweep.py`` draws the same for its GEMM1 timings)."""
    return load_script("kopt_moe_gemm1_sweep", REPO / "benchmarks" / "moe_gemm1_sweep.py").synthetic_inputs(
        t, h, i, dev, gen)


def _dense(ids, rw, x, x_s, w1, w1_s, w2, w2_s, offset: int):  # type: ignore[no-untyped-def]
    """fp32 layer output [T, H] from fully dequantised operands (what the reference computes)."""
    import torch

    def deq(w, s):  # [.., R, C] fp8 with [.., R/128, C/128] scales
        return w.float() * s.repeat_interleave(128, -2).repeat_interleave(128, -1)

    a = x.float() * x_s.t().repeat_interleave(128, 1)
    w13, w2d = deq(w1, w1_s), deq(w2, w2_s)
    inter = w2.shape[2]
    out = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
    for tok in range(x.shape[0]):
        for slot in range(ids.shape[1]):
            e = int(ids[tok, slot]) - offset
            if 0 <= e < 32:
                g = a[tok] @ w13[e].t()
                hid = torch.nn.functional.silu(g[inter:]) * g[:inter]
                out[tok] += float(rw[tok, slot]) * (hid @ w2d[e].t())
    return out


def _check(dev: str, seed: str) -> dict:
    import torch

    sys.path.insert(0, str(SEEDS))
    mod = importlib.import_module(f"{seed}.kernel")
    base = importlib.import_module(f"{seed}.base")
    gen = torch.Generator().manual_seed(11)
    failures: list[str] = []
    cases = 0
    for t, offset, h, i, params in SEED_CASES[seed]:
        cases += 1
        where = f"{seed} T={t} offset={offset} H={h} I={i} {params}"
        mod.PARAMS.update({"LAUNCH": "jit", **params})
        persistent = seed == "moe_grouped_fp8_q8pe" or bool(params.get("PERSIST"))
        programs = _count_persistent_launches(mod) if persistent else []
        logits, bias, x, x_s, w1, w1_s, w2, w2_s = _inputs(t, h, i, dev, gen)
        out = torch.empty(t, h, dtype=torch.bfloat16, device=dev)
        route = (_record_launches(mod._q8._LAUNCHERS[mod.PARAMS["LAUNCH"]]["route"], "launcher")
                 if seed == "moe_grouped_fp8_q8tw" else [])
        if seed.endswith("q8rd"):  # its short GEMM2's two kernels (the descriptor one under its warps' wrapper)
            short_gemm2 = mod.SHORT_GEMM2[mod.PARAMS["LAUNCH"]]
            gemm2 = _record_launches(short_gemm2, "plain", _record_launches(short_gemm2.descriptor, "launcher"))
        built = mod.PLANS.built if seed.endswith("q8hp") else 0
        mod.run(logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5, out)
        if seed == "moe_grouped_fp8_q8tw" and [kw["num_warps"] for kw in route[:1]] != [
                int(mod.PARAMS["ROUTE_WARPS"]) or 4]:
            failures.append(f"{where}: the routing launched at {[kw['num_warps'] for kw in route]} warps")
        short = t * 8 <= base.TILES_MAX_PAIRS
        if seed.endswith("q8rd") and short:
            desc = bool(int(mod.PARAMS["TMA2_SHORT"]))
            want = [(desc, int(mod.PARAMS["SHORT_WARPS2"]) or params["num_warps"] if desc else params["num_warps"],
                     int(mod.PARAMS["SHORT_STAGES2"]) or mod.PARAMS["num_stages"])]
            got = [("n_pairs" in kw or "E" in kw, kw["num_warps"], kw["num_stages"]) for kw in gemm2]
            if got != want:
                failures.append(f"{where}: the short GEMM2 launched as (descriptor, warps, stages) {got}, not {want}")
        if params.get("LAUNCH") == "fast" or seed != "moe_grouped_fp8_q8":
            # a second call: on a GPU every launch goes through the cached launchers; the fused launch's count resets
            again = torch.empty_like(out)
            mod.run(logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5, again)
            if not torch.equal(again, out):
                failures.append(f"{where}: the second call differs from the first")
        failures += _fused_launch_failures(mod, seed, params, t, out.device, where)
        ids, rw = base._route(logits, bias, 2.5)
        exact = seed in ("moe_grouped_fp8_q8ex", "moe_grouped_fp8_q8sw", "moe_grouped_fp8_q8tc", "moe_grouped_fp8_q8tw",
                         "moe_grouped_fp8_q8rd")
        if exact and t * 8 > base.TILES_MAX_PAIRS:
            failures += _exact_grid_failures(mod, ids.to(torch.int32), offset, params["BLOCK_M"], where)
        if seed.endswith("q8gl"):
            failures += _gluon_plan_failures(mod, params, out.device, where)
        if seed.endswith("q8s2") or (seed.endswith("q8gl") and not _gluon_planned(mod)):
            failures += _stages2_failures(mod, (logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5), out, where)
        if seed.endswith("q8hp"):
            failures += _lean_path_failures(mod, built, (logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5), out,
                                            ids.to(torch.int32), params, where)
        if persistent:
            failures += _persistent_failures(mod, ids.to(torch.int32), offset, params["BLOCK_M"], programs, where)
        ref = _dense(ids, rw, x, x_s, w1, w1_s, w2, w2_s, offset)
        none_local = ~((ids - offset >= 0) & (ids - offset < 32)).any(dim=1)
        if none_local.any() and out[none_local].abs().max() != 0:
            failures.append(f"{where}: a token with no local expert has a non-zero output")
        err = (out.float() - ref).norm() / ref.norm().clamp_min(1e-30)
        worst = float((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30))
        if not (err < 0.08 and worst < 0.12):  # e4m3 intermediate: 3-5 % seen (the interpreter truncates)
            failures.append(f"{where}: relative error {float(err):.4f} (norm), {worst:.4f} (max / max |ref|)")
        if seed in ("moe_grouped_fp8_q8td", "moe_grouped_fp8_q8tw", "moe_grouped_fp8_q8rd") and dev == "cpu":  # the
            # descriptors' loads are q8's arithmetic: equal up to a bf16 rounding flip (numpy may sum a dot with a
            # transposed operand in another order)
            key = "TMA2_SHORT" if seed.endswith("q8rd") and short else "TMA"
            mod.PARAMS[key] = 0
            pointers = torch.empty_like(out)
            mod.run(logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5, pointers)
            mod.PARAMS[key] = 1
            diff = (pointers.float() - out.float()).abs()
            if bool((diff > 2**-7 * pointers.float().abs() + 1e-6).any()):
                failures.append(f"{where}: {key}=1 differs from {key}=0 in the interpreter by {float(diff.max())}")
        if seed.endswith("q8sk") and int(params.get("SPLIT_K", 1)) > 1:  # the same products summed in another order
            mod.PARAMS["SPLIT_K"] = 1
            whole = torch.empty_like(out)
            mod.run(logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5, whole)
            mod.PARAMS["SPLIT_K"] = params["SPLIT_K"]
            diff = float((whole.float() - out.float()).norm() / whole.float().norm().clamp_min(1e-30))
            if diff > 1e-2:
                failures.append(f"{where}: SPLIT_K={params['SPLIT_K']} differs from SPLIT_K=1 by {diff:.4f} (norm)")
        if seed.endswith("q8cf"):  # the same sums as q8's combine kernel, in the same slot order
            mod.PARAMS["FUSED_COMBINE_UPTO"] = 0
            apart = torch.empty_like(out)
            mod.run(logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5, apart)
            mod.PARAMS["FUSED_COMBINE_UPTO"] = params["FUSED_COMBINE_UPTO"]
            diff = (apart.float() - out.float()).abs()
            if bool((diff > 2**-7 * apart.float().abs() + 1e-6).any()):
                failures.append(f"{where}: the fused combine differs from the separate one by {float(diff.max())}")
        if params.get("Y_BF16"):  # the bf16 rows were taken: their rounding shows against the fp32 rows' output
            mod.PARAMS["Y_BF16"] = 0
            fp32_rows = torch.empty_like(out)
            mod.run(logits, bias, x, x_s, w1, w1_s, w2, w2_s, offset, 2.5, fp32_rows)
            mod.PARAMS["Y_BF16"] = 1
            if torch.equal(fp32_rows, out):
                failures.append(f"{where}: Y_BF16=1 gives the fp32 rows' output bit for bit (not taken?)")
        # GEMM1 alone: every scale group's largest |q| sits at the e4m3 maximum
        order, table, _pos, n_tiles = base._tiles(ids, offset, params["BLOCK_M"])
        bn = params["BLOCK_N"]
        q = torch.zeros(t * 8, i, dtype=torch.float8_e4m3fn, device=dev)
        qs = torch.zeros(t * 8, i // bn, dtype=torch.float32, device=dev)
        _part(mod, "_q8")._gemm1_swiglu_q8_kernel[(n_tiles, i // bn)](
            x, x_s.float().contiguous(), w1, w1_s, table, order, q, qs, t, H=h, I=i, TOPK=8,
            BLOCK_M=params["BLOCK_M"], BLOCK_N=bn, BLOCK_K=128, NUM_STAGES=2, UPCAST=dev == "cpu", QMAX=448.0,
            num_warps=4, num_stages=2)
        used = int(table[:, 2].sum())
        amax = q[:used].float().abs().reshape(used, i // bn, bn).amax(-1)
        live = qs[:used] > 1e-20
        if not torch.allclose(amax[live], torch.full_like(amax[live], 448.0)):
            failures.append(f"{where}: group amax of q {amax[live].min():.1f}..{amax[live].max():.1f}, not 448")
    mod.PARAMS.update(BLOCK_N=256)
    logits, bias, x, x_s, w1, w1_s, w2, w2_s = _inputs(3, 256, 256, dev, gen)
    try:
        mod.run(logits, bias, x, x_s, w1, w1_s, w2, w2_s, 0, 2.5, torch.empty(3, 256, dtype=torch.bfloat16,
                                                                                 device=dev))
        refused = ""
    except ValueError as exc:
        refused = str(exc) if "W2 scale block" in str(exc) else ""
    return {"cases": cases, "failures": failures, "refused": refused}


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    assert device != "cpu" or os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"
    what = sys.argv[2] if len(sys.argv) > 2 else "moe_grouped_fp8_q8"
    print(json.dumps(_check_tiles(device) if what == "tiles" else _check(device, what)))
