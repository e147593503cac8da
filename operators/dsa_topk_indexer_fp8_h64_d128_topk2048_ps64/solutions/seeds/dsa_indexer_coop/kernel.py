"""DSA top-2048 indexer in one launch with each row's exact radix select shared by R programs: the
``dsa_indexer_one_acc`` seed (``acc.py``: FP8 scoring promoted to fp32 every ACC products, over ``one.py`` and
``base.py``) with the select spread over the last R of a row's scoring programs to finish.

Why. On the H200 (2026-12-02 call BQ, ``benchmarks/results/indexer_parts_h200_bq.md``, CUPTI) the retained one launch
takes 28.7 / 30.6 / 54.5 us on 30 x 33 / 31 x 43 / 30 x 82 pages, of which the row's select alone is 14.6 / 14.8 /
26.6 us: one program per row runs the four 8-bit radix passes and the emission over the whole row (4,096 or 8,192
lanes) while the rest of the GPU idles. Here the last R programs of a row to finish scoring (R = 2, 4 or 8) become
its selectors: each waits until all the row's programs have scored (a spin on the row's arrival count), then
takes 1/R of the row's lanes, and per radix pass adds its lanes' 256-bin histogram of the current byte to the
row's histogram in global memory (atomics), waits for the row's other selectors (a spin on a pass counter), and
reads the row's histogram to find the same threshold byte as they do. After four passes every selector knows the
exact key of the k-th largest score and how many of the keys equal to it to take: it reserves its ties from a
row-wide tie count (ties are free: the evaluator compares the selected scores as a multiset), reserves its output
slots from a row-wide slot count, and writes its ids; the first pads the row with -1. The last selector to leave
zeroes the row's workspace (histograms and counts) for the next call.

Waiting without a deadlock: a selector only waits for programs that already run (the other selectors, which have
arrived) or that need a free slot (scoring programs not yet started); R x rows <= SMs - 1, so the spinning programs
never take every SM. The host picks R = min(``SELECTORS``, spans per row, (SMs - 1) / rows) rounded down to a power of
two; R = 1 is ``dsa_indexer_one_acc``'s kernel. The Triton CPU interpreter runs programs one after another (a spin
there would never end): under ``TRITON_INTERPRET=1`` the scoring launch only scores and counts, and the passes and
the emission run as launches of (R, rows) programs over the same device functions (each recomputes the threshold
prefix from the histograms of the passes before it, as the GPU kernel does), so the CPU tests check the algorithm
and the GPU tests the spins.
Entry point: ``run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)`` (DPS).
"""

import functools
import os

import torch
import triton
import triton.language as tl

from . import acc as _acc
from .base import _pad_row, _score_key, _threshold_byte, _token_ids
from .indexer_args import PAGE_SIZE, TOPK, indexer_args
from .one import select_warps

_INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"

PARAMS = {"BN": 256, "BLOCKS": 1, "ACC": 32, "num_warps": 0, "num_stages": 2, "SELECTORS": 4}  # kernelopt:params

#: Workspace of a row (int32, WS words): four 256-bin histograms, then the counts at HIST + ARRIVE / PASSES / TIES /
#: SLOTS / DEPART (the row's arrived scoring programs, selectors through radix passes, ties reserved, output slots
#: reserved, selectors gone).
HIST = tl.constexpr(4 * 256)
ARRIVE, PASSES, TIES, SLOTS, DEPART = (tl.constexpr(i) for i in range(5))
WS = tl.constexpr(4 * 256 + 8)


@triton.jit
def _sel_state(ws_ptr, key, live, k, P: tl.constexpr):
    """Threshold prefix, keys still to take and candidate lanes after the row's first P radix passes, read from the
    row's global histograms (every selector reads the same ones, so all find the same bytes)."""
    need = k
    cand = live
    thr = tl.zeros([], dtype=tl.uint32)
    bins = tl.arange(0, 256)
    for i in tl.static_range(P):
        d, need = _threshold_byte(tl.load(ws_ptr + i * 256 + bins, cache_modifier=".cg"), need)
        thr = thr | (d.to(tl.uint32) << (24 - 8 * i))
        cand = cand & (((key >> (24 - 8 * i)) & 0xFF) == d.to(tl.uint32))
    return thr, need, cand


@triton.jit
def _sel_lanes(scores_ptr, seq_lens_ptr, b, j, max_pos, L: tl.constexpr, TOPK_C: tl.constexpr):
    """Selector ``j``'s lanes of row ``b``: positions, live mask, keys, and the row's k = min(TOPK_C, live)."""
    pos = j * L + tl.arange(0, L)
    n = tl.minimum(tl.load(seq_lens_ptr + b).to(tl.int32), max_pos)
    live = pos < n
    score = tl.load(scores_ptr + b * max_pos + pos, mask=pos < max_pos, other=float("-inf"), cache_modifier=".cg")
    return pos, live, _score_key(score), tl.maximum(tl.minimum(n, TOPK_C), 0)


@triton.jit
def _sel_pass(ws_ptr, key, live, k, P: tl.constexpr):
    """Radix pass P: this selector's 256-bin histogram of byte 3 - P over its candidates, added to the row's."""
    _thr, _need, cand = _sel_state(ws_ptr, key, live, k, P)
    digit = (key >> (24 - 8 * P)) & 0xFF
    tl.atomic_add(ws_ptr + P * 256 + tl.arange(0, 256), tl.histogram(digit.to(tl.int32), 256, mask=cand),
                  sem="relaxed")


@triton.jit
def _sel_emit(ws_ptr, key, live, pos, k, j, b, bt_ptr, out_ptr, max_pages, TOPK_C: tl.constexpr,
              PAGE: tl.constexpr):
    """After the four passes: this selector's keys above the threshold and its share of the ties, at slots reserved
    from the row's counts; the first selector pads the row's slots from k with -1."""
    thr, need, _cand = _sel_state(ws_ptr, key, live, k, 4)
    tie = live & (key == thr)
    tie_i = tie.to(tl.int32)
    n_tie = tl.sum(tie_i)
    first_tie = tl.atomic_add(ws_ptr + HIST + TIES, n_tie, sem="relaxed")
    take_ties = tl.minimum(tl.maximum(need - first_tie, 0), n_tie)
    take = (live & (key > thr)) | (tie & (tl.cumsum(tie_i, 0) <= take_ties))
    take_i = take.to(tl.int32)
    base = tl.atomic_add(ws_ptr + HIST + SLOTS, tl.sum(take_i), sem="relaxed")
    row_out = out_ptr + b * TOPK_C
    tl.store(row_out + base + tl.cumsum(take_i, 0) - take_i, _token_ids(bt_ptr, b, max_pages, pos, take, PAGE),
             mask=take)
    if j == 0:
        _pad_row(row_out, k, TOPK_C)


@triton.jit
def _sel_leave(ws_ptr, R: tl.constexpr):
    """Count this selector out; the last one zeroes the row's workspace (histograms and counts)."""
    tl.debug_barrier()
    if tl.atomic_add(ws_ptr + HIST + DEPART, 1, sem="acq_rel") == R - 1:
        offs = tl.arange(0, 2048)
        tl.store(ws_ptr + offs, tl.zeros([2048], dtype=tl.int32), mask=offs < WS)


@triton.jit
def _wait_at_least(ptr, target):
    """Spin until the count at ``ptr`` reaches ``target`` (acquire: the writes before its increments are visible)."""
    while tl.atomic_add(ptr, 0, sem="acquire") < target:
        pass


@triton.jit
def _indexer_coop_kernel(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, ws_ptr, out_ptr,
    max_pages, max_pos,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    ACC: tl.constexpr, NPAD: tl.constexpr, TOPK_C: tl.constexpr, R: tl.constexpr, SELECT: tl.constexpr,
):
    """Grid (spans, rows): score the span; the row's last R programs to finish select the row together (module
    docstring). SELECT=False (the interpreter): score and count only."""
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    _acc._score_span_acc(q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr, max_pages, max_pos, pid_n,
                         b, H, D, PAGE, BN, BLOCKS, ACC)
    ws = ws_ptr + b * WS
    L: tl.constexpr = NPAD // R
    tl.debug_barrier()  # every thread's score stores precede the count
    done = tl.atomic_add(ws + HIST + ARRIVE, 1, sem="acq_rel")
    n = tl.num_programs(0)
    if SELECT:
        if done >= n - R:
            j = done - (n - R)
            _wait_at_least(ws + HIST + ARRIVE, n)
            pos, live, key, k = _sel_lanes(scores_ptr, seq_lens_ptr, b, j, max_pos, L, TOPK_C)
            for p in tl.static_range(4):
                _sel_pass(ws, key, live, k, p)
                tl.debug_barrier()  # every thread's histogram atomics precede the pass count
                tl.atomic_add(ws + HIST + PASSES, 1, sem="release")
                _wait_at_least(ws + HIST + PASSES, R * (p + 1))
            _sel_emit(ws, key, live, pos, k, j, b, bt_ptr, out_ptr, max_pages, TOPK_C, PAGE)
            _sel_leave(ws, R)


@triton.jit
def _sel_pass_kernel(scores_ptr, seq_lens_ptr, ws_ptr, max_pos, L: tl.constexpr, TOPK_C: tl.constexpr,
                     P: tl.constexpr):
    """The interpreter's pass P: program (j, b) is row b's selector j."""
    b = tl.program_id(1).to(tl.int64)
    _pos, live, key, k = _sel_lanes(scores_ptr, seq_lens_ptr, b, tl.program_id(0), max_pos, L, TOPK_C)
    _sel_pass(ws_ptr + b * WS, key, live, k, P)


@triton.jit
def _sel_emit_kernel(scores_ptr, seq_lens_ptr, ws_ptr, bt_ptr, out_ptr, max_pages, max_pos, L: tl.constexpr,
                     TOPK_C: tl.constexpr, PAGE: tl.constexpr, R: tl.constexpr):
    """The interpreter's emission: program (j, b) is row b's selector j."""
    b = tl.program_id(1).to(tl.int64)
    j = tl.program_id(0)
    ws = ws_ptr + b * WS
    pos, live, key, k = _sel_lanes(scores_ptr, seq_lens_ptr, b, j, max_pos, L, TOPK_C)
    _sel_emit(ws, key, live, pos, k, j, b, bt_ptr, out_ptr, max_pages, TOPK_C, PAGE)
    _sel_leave(ws, R)


#: Per-device row workspaces (int32 [rows, WS], zero between calls: each row's last selector zeroes its own).
#: Allocated (zeroed) once per device and grown with the batch, outside any timed call after the first; one call at
#: a time per device (the harness times one solution at a time per GPU).
_WORKSPACE: dict = {}


def _workspace(batch: int, device: torch.device) -> torch.Tensor:
    buf = _WORKSPACE.get(device)
    if buf is None or buf.shape[0] < batch:
        buf = _WORKSPACE[device] = torch.zeros((max(batch, 64), int(WS)), dtype=torch.int32, device=device)
    return buf


@functools.lru_cache(maxsize=None)
def _sm_count(device: torch.device) -> int:
    return torch.cuda.get_device_properties(device).multi_processor_count if device.type == "cuda" else 132


def selectors(param: int, spans: int, batch: int, sms: int) -> int:
    """R: at most ``param`` selectors per row, no more than the row's programs, and R x rows <= SMs - 1 (spinning
    programs never hold every SM); a power of two (each takes NPAD / R lanes)."""
    r = min(param, spans, max(1, (sms - 1) // max(batch, 1)))
    return 1 << (max(r, 1).bit_length() - 1)


def select_topk_phases(scores: torch.Tensor, seq_lens: torch.Tensor, block_table: torch.Tensor,
                       topk_indices: torch.Tensor, r: int) -> None:
    """The select of R selectors per row as separate launches (four passes, then the emission) over fp32 ``scores``
    [B, max_pos] (contiguous), int32 ``seq_lens`` [B] and ``block_table`` [B, max_pages], writing int32
    ``topk_indices`` [B, 2048]: what the interpreter runs, and what the tests check on adversarial rows."""
    batch, max_pos = scores.shape
    npad = max(triton.next_power_of_2(max_pos), 256)
    ws = _workspace(batch, scores.device)
    for p in range(4):
        _sel_pass_kernel[(r, batch)](scores, seq_lens, ws, max_pos, L=npad // r, TOPK_C=TOPK, P=p)
    _sel_emit_kernel[(r, batch)](scores, seq_lens, ws, block_table, topk_indices, block_table.shape[1], max_pos,
                                 L=npad // r, TOPK_C=TOPK, PAGE=PAGE_SIZE, R=r)


def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> None:
    """Write the top-2048 global token ids per row ([B, 2048] int32, -1 padding) into ``topk_indices``."""
    bn, blocks, warps, acc, sel = (int(PARAMS[k]) for k in ("BN", "BLOCKS", "num_warps", "ACC", "SELECTORS"))
    if sel not in (1, 2, 4, 8):
        raise ValueError(f"dsa_indexer_coop: SELECTORS={sel} must be 1, 2, 4 or 8")
    a = indexer_args("dsa_indexer_coop", q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table,
                     topk_indices)
    batch, max_pos = a["batch"], a["max_pos"]
    spans = triton.cdiv(max_pos, bn * blocks) if max_pos else 0
    npad = max(triton.next_power_of_2(max(max_pos, 1)), 256)
    r = selectors(sel, spans, batch, _sm_count(a["q"].device)) if batch else 1
    if r == 1 or max_pos <= TOPK or max_pos > _acc.RADIX_MAX_POS:  # dsa_indexer_one_acc's call (its checks too)
        _acc.PARAMS.update({k: PARAMS[k] for k in ("BN", "BLOCKS", "ACC", "num_warps", "num_stages")})
        _acc.run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)
        return
    if acc not in (32, 64, 128):
        raise ValueError(f"dsa_indexer_coop: ACC={acc} must be 32, 64 or 128 (products per fp32 promotion)")
    if warps not in (0, 4, 8, 16):
        raise ValueError(f"dsa_indexer_coop: num_warps={warps} must be 0 (the select's count), 4, 8 or 16")
    scores = torch.empty(batch, max_pos, dtype=torch.float32, device=a["q"].device)
    ws = _workspace(batch, scores.device)
    _indexer_coop_kernel[(spans, batch)](
        a["q"], a["k_bytes"], a["k_scales"], a["w"], a["lens"], a["table"], scores, ws, topk_indices,
        a["max_pages"], max_pos, H=_acc.NUM_HEADS, D=_acc.HEAD_DIM, PAGE=PAGE_SIZE, BN=bn, BLOCKS=blocks, ACC=acc,
        NPAD=npad, TOPK_C=TOPK, R=r, SELECT=not _INTERPRET, num_warps=warps or select_warps(npad),
        num_stages=int(PARAMS["num_stages"]))
    if _INTERPRET:  # the passes and the emission as launches (module docstring)
        select_topk_phases(scores, a["lens"], a["table"], topk_indices, r)
