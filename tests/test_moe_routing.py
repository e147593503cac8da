"""The MoE seed's ROUTE="triton" launches (``_route_kernel``, ``_tile_table_kernel``) against its torch routing
and permutation (``_route``, ``_tiles``, the path its contest traces measured), in the Triton interpreter.

Per token the same 8 experts with the same combine weights (slot order is free: the combine sums a token's
slots); the same tile table (its used tiles; unused ones hold 0 rows); the same sorted (token, expert) sequence; every local pair at the same sorted
row, other ranks' pairs at -1. Random logits like the operator's inputs (``inputs.py``: N(0, 1.5^2) plus a
per-expert skew, bias N(0, 0.01^2) in bf16), several token counts, rank offsets and BLOCK_M. This file is also
the subprocess's script (``TRITON_INTERPRET=1`` must be set before triton is imported).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

from operator_helpers import run_kernel_script

REPO = Path(__file__).resolve().parents[1]
KERNEL = (REPO / "operators" / "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048" / "solutions"
          / "seeds" / "moe_grouped_fp8" / "kernel.py")


def test_triton_routing_matches_torch_in_interpreter() -> None:
    res = run_kernel_script(Path(__file__), [], "cpu", 600)
    assert res["failures"] == [], res["failures"][:10]
    assert res["cases"] >= 8


def _check() -> dict:
    import torch

    spec = importlib.util.spec_from_file_location("moe_grouped_fp8_routing_check", KERNEL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    gen = torch.Generator().manual_seed(7)
    skew = torch.randn(256, generator=gen) * 0.2
    failures: list[str] = []
    cases = 0
    for t, offset, bm in ((1, 0, 16), (7, 32, 16), (16, 224, 32), (55, 96, 16), (80, 0, 64), (128, 160, 128),
                          (3, 64, 16), (33, 192, 32)):
        cases += 1
        where = f"T={t} offset={offset} BLOCK_M={bm}"
        logits = (torch.randn(t, 256, generator=gen) * 1.5 + skew).float()
        bias = (torch.randn(256, generator=gen) * 0.01).to(torch.bfloat16)
        ids_ref, w_ref = mod._route(logits, bias, 2.5)
        ids, w = mod._route_triton(logits, bias, 2.5)
        ids_ref, ids = ids_ref.long(), ids.long()
        got = [dict(zip(ids[i].tolist(), w[i].tolist())) for i in range(t)]
        want = [dict(zip(ids_ref[i].tolist(), w_ref[i].tolist())) for i in range(t)]
        bad = [i for i in range(t) if set(got[i]) != set(want[i])]
        if bad:
            failures.append(f"{where}: token {bad[0]} experts {sorted(got[bad[0]])} vs {sorted(want[bad[0]])}")
            continue
        wbad = [(i, e) for i in range(t) for e in want[i] if abs(got[i][e] - want[i][e]) > 1e-6 * abs(want[i][e])]
        if wbad:
            i, e = wbad[0]
            failures.append(f"{where}: token {i} expert {e} weight {got[i][e]!r} vs {want[i][e]!r}")
            continue
        o_ref, tab_ref, pos_ref, nt_ref = mod._tiles(ids_ref, offset, bm)
        o, tab, pos, nt = mod._tiles_triton(ids.to(torch.int32), offset, bm)
        used, used_ref = tab[:, 2] > 0, tab_ref[:, 2] > 0  # unused tiles (0 rows) exit at once: start is free
        if nt != nt_ref or not torch.equal(used, used_ref) or not torch.equal(tab[used].long(), tab_ref[used].long()):
            failures.append(f"{where}: tile tables differ ({nt} vs {nt_ref} tiles)")
            continue

        def pairs(order, idx, offset=offset):  # sorted (token, expert) sequence over the local segment
            n_local = int(((idx.reshape(-1) - offset >= 0) & (idx.reshape(-1) - offset < 32)).sum())
            return [(int(q) // 8, int(idx.reshape(-1)[int(q)])) for q in order[:n_local].tolist()]

        if pairs(o, ids) != pairs(o_ref, ids_ref):
            failures.append(f"{where}: sorted (token, expert) sequences differ")
            continue
        row_of = {(p // 8, int(ids_ref.reshape(-1)[p])): int(pos_ref[p]) for p in range(t * 8)}
        mism = [p for p in range(t * 8) if int(pos[p]) != row_of[(p // 8, int(ids.reshape(-1)[p]))]]
        if mism:
            failures.append(f"{where}: pair {mism[0]} at sorted row {int(pos[mism[0]])}, torch path "
                            f"{row_of[(mism[0] // 8, int(ids.reshape(-1)[mism[0]]))]}")
    return {"cases": cases, "failures": failures}


if __name__ == "__main__":
    assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"
    print(json.dumps(_check()))
