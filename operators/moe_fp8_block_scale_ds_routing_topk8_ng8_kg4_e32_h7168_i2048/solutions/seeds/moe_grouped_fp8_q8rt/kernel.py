"""DeepSeek-V3 FP8 block-scale MoE: the ``moe_grouped_fp8_q8`` seed (``q8.py``, over ``base.py``) with its routing
and its tile table in one launch.

Why. The official span of a 32-59-token call of the retained q8 dispatch (H200, 2026-12-02 call BP,
``benchmarks/results/span_anatomy_h200_moe_bp.md``: the timer's own CUPTI records) is 360-412 us with 10.5-11.7 %
idle, and the idle time sits in two gaps: 20.6-22.0 us before the one-program tile-table kernel and 18.0-18.2 us
before GEMM1. The routing kernel takes 5.5 us and the tile table 8.5 us, less than the host's time to issue the
next launch, so the GPU waits for the host twice before the GEMMs start. Here, while the tile table fits one
program (``TILES_MAX_PAIRS`` routed pairs, up to 128 tokens), ``_route_tiles_kernel`` is one launch of one program
per token: each routes its token (``base._route_kernel``, unchanged), counts itself done on a counter (an acq_rel
atomic after a CTA barrier: its routing stores are visible to whoever reads the count after it), and the last
token's program builds the tile table (``base._tile_table_kernel``, unchanged, as a device function) and resets the
counter to 0 for the next call. One gap instead of two before GEMM1; the GEMMs and the combine are q8's.

Longer calls (more than ``TILES_MAX_PAIRS`` routed pairs: the 901-14,107-token band, 63 % of the contest mean)
build the table on the GPU too (``LONG_TILES="triton"``), where q8 builds it with ~25 small torch operations: an
H200 profile of the q8 dispatch at 14,107 tokens (``benchmarks/results/profiles_v/profile_moe_q8_dispatch.json``)
has 3.86 ms of device time per call against a 4.55 ms official latency, and besides the GEMMs, the routing (97 us)
and the combine (163 us) only that tile table's kernels (2-76 us each, far shorter than the host's time to issue
them). Here it is a counting sort in two launches of one program per CHUNK pairs: ``_count_plan_kernel`` counts
each chunk's pairs per key (local expert 0-31, 32 for another rank's) and its last program to finish turns the
counts into each (chunk, key)'s first sorted row and the tile table; ``_place_kernel`` gives each pair its sorted
row (stable: chunk order, then lane order) - the same order, table and positions as q8's torch ``_tiles``
(``tests/test_moe_q8.py`` checks them equal). ``LONG_TILES="torch"`` is q8's.

``FUSE_TILES=0`` is q8's two launches for the short calls. Every launch goes through ``fastlaunch.py`` with
``LAUNCH="fast"`` as q8's launches do. This package's ``q8`` module launches through the table below (its
``route`` entry holds the routing launch back until the ``tiles`` entry can issue both as one) and builds long
tables with ``_tiles_triton``, so q8's entry point, checks and buffers are reused as they are.
"""

import functools

import torch
import triton
import triton.language as tl

from . import q8 as _q8
from .base import NUM_LOCAL, TILES_MAX_PAIRS, TOP_K, _route_kernel, _tile_table_kernel
from .fastlaunch import fast

PARAMS = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_N2": 128, "num_warps": 8, "num_stages": 3, "LAUNCH": "jit", "FUSE_TILES": 1, "LONG_TILES": "triton"}  # kernelopt:params

#: The long calls' counting sort: pairs per program, and the keys' histogram width (local experts 0-31, 32 for
#: another rank's, padded to a power of two).
CHUNK = 1024
KEYS = 64
#: Tiles per block of the plan's tile-table loop.
TILE_BLOCK = 256


@triton.jit
def _route_tiles_kernel(logits_ptr, bias_ptr, idx_ptr, w_ptr, scale, count_ptr,
                        order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                        E: tl.constexpr, NG: tl.constexpr, KG: tl.constexpr, TOPK: tl.constexpr,
                        BLOCK_M: tl.constexpr, NUM_LOCAL_C: tl.constexpr, P_PAD: tl.constexpr,
                        NT_PAD: tl.constexpr):
    """Token ``program_id(0)``'s routing; the last token's program to finish builds the tile table."""
    _route_kernel(logits_ptr, bias_ptr, idx_ptr, w_ptr, scale, E, NG, KG, TOPK)
    tl.debug_barrier()  # every thread's routing stores precede the count
    if tl.atomic_add(count_ptr, 1, sem="acq_rel") == tl.num_programs(0) - 1:
        _tile_table_kernel(idx_ptr, order_ptr, table_ptr, pos_ptr, offset, n_pairs, n_tiles,
                           BLOCK_M, NUM_LOCAL_C, P_PAD, NT_PAD)
        tl.atomic_xchg(count_ptr, 0)


@triton.jit
def _pair_keys(idx_ptr, offset, n_pairs, c, CHUNK: tl.constexpr, NUM_LOCAL_C: tl.constexpr):
    """Chunk ``c``'s pairs: indices, live mask, local mask and sort key (the local expert, NUM_LOCAL_C for another
    rank's)."""
    p = c * CHUNK + tl.arange(0, CHUNK)
    live = p < n_pairs
    e = tl.load(idx_ptr + p, mask=live, other=0) - offset
    local = live & (e >= 0) & (e < NUM_LOCAL_C)
    return p, live, local, tl.where(local, e, NUM_LOCAL_C)


@triton.jit
def _plan(counts_ptr, base_ptr, keyv_ptr, table_ptr, n_chunks, n_tiles,
          BLOCK_M: tl.constexpr, NC_PAD: tl.constexpr, KEYS: tl.constexpr, NUM_LOCAL_C: tl.constexpr,
          TILE_BLOCK: tl.constexpr):
    """From the chunks' key counts: each (chunk, key)'s first sorted row into ``base`` and the tile table
    (expert, first sorted row, rows; rows 0 past the last tile) into ``table``, entry for entry as q8's torch
    ``_tiles``."""
    chunk = tl.arange(0, NC_PAD)
    keys = tl.arange(0, KEYS)
    in_chunks = chunk[:, None] < n_chunks
    cnt = tl.load(counts_ptr + chunk[:, None] * KEYS + keys[None, :], mask=in_chunks, other=0, cache_modifier=".cg")
    total = tl.sum(cnt, axis=0)  # [KEYS] pairs per key
    seg = tl.cumsum(total, axis=0) - total  # the key's first sorted row
    tl.store(base_ptr + chunk[:, None] * KEYS + keys[None, :], seg[None, :] + tl.cumsum(cnt, axis=0) - cnt,
             mask=in_chunks)
    ntile = tl.where(keys < NUM_LOCAL_C, (total + BLOCK_M - 1) // BLOCK_M, 0)
    tend = tl.cumsum(ntile, axis=0)  # tiles of keys <= this one
    tl.store(keyv_ptr + keys, tend - ntile)  # the key's first tile
    tl.store(keyv_ptr + KEYS + keys, seg)
    tl.store(keyv_ptr + 2 * KEYS + keys, total)
    tl.debug_barrier()  # the key vectors above are read back by other threads below
    for t0 in range(0, n_tiles, TILE_BLOCK):
        ti = t0 + tl.arange(0, TILE_BLOCK)
        e = tl.sum((tend[None, :] <= ti[:, None]).to(tl.int32), axis=1)  # the tile's key
        valid = e < NUM_LOCAL_C
        ec = tl.minimum(e, NUM_LOCAL_C - 1)
        row0 = (ti - tl.load(keyv_ptr + ec)) * BLOCK_M
        rows = tl.where(valid, tl.minimum(tl.load(keyv_ptr + 2 * KEYS + ec) - row0, BLOCK_M), 0)
        start = tl.load(keyv_ptr + KEYS + ec) + row0  # past the last tile as q8's too (never read: rows 0)
        tv = ti < n_tiles
        tl.store(table_ptr + ti * 3, ec, mask=tv)
        tl.store(table_ptr + ti * 3 + 1, start, mask=tv)
        tl.store(table_ptr + ti * 3 + 2, rows, mask=tv)


@triton.jit
def _count_plan_kernel(idx_ptr, counts_ptr, count_ptr, base_ptr, keyv_ptr, table_ptr, offset, n_pairs, n_tiles,
                       CHUNK: tl.constexpr, KEYS: tl.constexpr, NUM_LOCAL_C: tl.constexpr, BLOCK_M: tl.constexpr,
                       NC_PAD: tl.constexpr, TILE_BLOCK: tl.constexpr):
    """Chunk ``program_id(0)``'s key counts; the last chunk's program to finish plans the sort (``_plan``) and resets
    the counter."""
    c = tl.program_id(0)
    _p, live, _local, key = _pair_keys(idx_ptr, offset, n_pairs, c, CHUNK, NUM_LOCAL_C)
    tl.store(counts_ptr + c * KEYS + tl.arange(0, KEYS), tl.histogram(key, KEYS, mask=live))
    tl.debug_barrier()  # every thread's count stores precede the count of chunks done
    if tl.atomic_add(count_ptr, 1, sem="acq_rel") == tl.num_programs(0) - 1:
        _plan(counts_ptr, base_ptr, keyv_ptr, table_ptr, tl.num_programs(0), n_tiles, BLOCK_M, NC_PAD, KEYS,
              NUM_LOCAL_C, TILE_BLOCK)
        tl.atomic_xchg(count_ptr, 0)


@triton.jit
def _place_kernel(idx_ptr, base_ptr, order_ptr, pos_ptr, offset, n_pairs,
                  CHUNK: tl.constexpr, KEYS: tl.constexpr, NUM_LOCAL_C: tl.constexpr):
    """Chunk ``program_id(0)``'s pairs to their sorted rows: ``order[row] = pair``, ``pos[pair] = row`` (-1 for
    another rank's), key by key in lane order."""
    c = tl.program_id(0)
    p, live, local, key = _pair_keys(idx_ptr, offset, n_pairs, c, CHUNK, NUM_LOCAL_C)
    row = tl.zeros([CHUNK], dtype=tl.int32)
    for x in range(0, NUM_LOCAL_C + 1):
        m = (live & (key == x)).to(tl.int32)
        row = tl.where(m != 0, tl.load(base_ptr + c * KEYS + x) + tl.cumsum(m, 0) - 1, row)
    tl.store(order_ptr + row, p.to(tl.int32), mask=live)
    tl.store(pos_ptr + p, tl.where(local, row, -1), mask=live)


def _tiles_triton(topk_idx: torch.Tensor, offset: int, block_m: int):
    """q8's ``_tiles`` (sorted pair order, tile table [n_tiles, 3], each pair's sorted row or -1, n_tiles) as the
    two launches above, through the launchers of ``LAUNCH``; ``LONG_TILES="torch"``: q8's torch ``_tiles``."""
    if PARAMS["LONG_TILES"] not in ("triton", "torch"):
        raise ValueError(f"moe_grouped_fp8_q8rt: LONG_TILES={PARAMS['LONG_TILES']!r} must be 'triton' or 'torch'")
    if PARAMS["LONG_TILES"] == "torch":
        return _torch_tiles(topk_idx, offset, block_m)
    dev = topk_idx.device
    n_pairs = topk_idx.numel()
    n_chunks = triton.cdiv(n_pairs, CHUNK)
    n_tiles = min(n_pairs, triton.cdiv(n_pairs, block_m) + NUM_LOCAL)  # as q8's: a tile holds >= 1 pair
    work = torch.empty(2 * n_chunks * KEYS + 3 * KEYS, dtype=torch.int32, device=dev)
    order = torch.empty(n_pairs, dtype=torch.int32, device=dev)
    pos = torch.empty(n_pairs, dtype=torch.int32, device=dev)
    table = torch.empty((n_tiles, 3), dtype=torch.int32, device=dev)
    counts, base, keyv = work[:n_chunks * KEYS], work[n_chunks * KEYS:2 * n_chunks * KEYS], work[2 * n_chunks * KEYS:]
    k = _LONG[PARAMS["LAUNCH"]]
    k["count_plan"][(n_chunks,)](topk_idx, counts, _count(dev), base, keyv, table, offset, n_pairs, n_tiles,
                                 CHUNK=CHUNK, KEYS=KEYS, NUM_LOCAL_C=NUM_LOCAL, BLOCK_M=block_m,
                                 NC_PAD=max(triton.next_power_of_2(n_chunks), 2), TILE_BLOCK=TILE_BLOCK, num_warps=4)
    k["place"][(n_chunks,)](topk_idx, base, order, pos, offset, n_pairs, CHUNK=CHUNK, KEYS=KEYS,
                            NUM_LOCAL_C=NUM_LOCAL, num_warps=4)
    return order, table, pos, n_tiles


#: Per-device counter of the fused routing launch and of the long calls' count-and-plan launch (int32, zero between
#: launches: each one's last program resets it; a call uses one of the two). Allocated (zeroed) once per device, at
#: the first call; one call at a time per device (the harness times one solution at a time per GPU).
_COUNTS: dict = {}


def _count(device: torch.device) -> torch.Tensor:
    buf = _COUNTS.get(device)
    if buf is None:
        buf = _COUNTS[device] = torch.zeros(1, dtype=torch.int32, device=device)
    return buf


class _Grid:
    """``launcher[grid](*args, **kw)`` syntax over a function ``fn(grid, *args, **kw)``."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __getitem__(self, grid):
        return functools.partial(self.fn, grid)


def _launch_table(kernels: dict, fused) -> dict:
    """q8's launch table (``route``, ``tiles``, ``gemm1``, ``gemm2``, ``combine``) with the routing and the tile
    table issued as one launch of ``fused`` when ``FUSE_TILES`` is on and the table fits one program."""
    held: dict = {}

    def route(grid, *args, **kw):
        if int(PARAMS["FUSE_TILES"]) and grid[0] * TOP_K <= TILES_MAX_PAIRS:
            held["route"] = (grid, args, kw)  # issued with the tile table's arguments, next
            return None
        return kernels["route"][grid](*args, **kw)

    def tiles(grid, *args, **kw):
        if "route" not in held:
            return kernels["tiles"][grid](*args, **kw)
        rgrid, rargs, rkw = held.pop("route")
        rkw = {k: v for k, v in rkw.items() if k != "num_warps"}
        # the routing's (logits, bias, ids, weights, scale), the counter, the table's arguments after its ids
        return fused[rgrid](*rargs, _count(rargs[0].device), *args[1:], **rkw, **kw)

    return {**kernels, "route": _Grid(route), "tiles": _Grid(tiles)}


_LONG = {"jit": {"count_plan": _count_plan_kernel, "place": _place_kernel},
         "fast": {"count_plan": fast(_count_plan_kernel), "place": fast(_place_kernel)}}

# this package's own copy of the q8 module: its seed's package (and traces' hashes) is untouched
_torch_tiles = _q8._tiles
_q8._tiles = _tiles_triton
_q8.PARAMS = PARAMS
_q8._LAUNCHERS = {"jit": _launch_table(_q8._KERNELS, _route_tiles_kernel),
                  "fast": _launch_table({name: fast(fn) for name, fn in _q8._KERNELS.items()},
                                        fast(_route_tiles_kernel))}


def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output):
    """Write the MoE layer's bf16 output for this rank's 32 local experts into ``output`` [T, 7168]."""
    _q8.run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
            gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output)
