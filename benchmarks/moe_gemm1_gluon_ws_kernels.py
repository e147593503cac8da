"""The MoE's long-call GEMM1 in Gluon with a warp-specialised TMA producer, for ``benchmarks/moe_gemm_ws.py`` (a
measure, not a seed: bit-identical to the retained GEMM1 and 1.37-1.64x slower in every design here, H100 calls KD-KI
of 2026-12-06, ``benchmarks/results/moe_gemm_ws_nvidia_h100_80gb_hbm3_k{d,e,f,g,i}.md``).

Why. Call IA's Gluon GEMM1 (seed ``moe_grouped_fp8_q8gl``) spent 44 % of its stall cycles at the per-K-block CTA
barrier that let its warp groups agree before a ring buffer was refilled, and Triton's own split (``tl.range(...,
warp_specialize=True)``, calls KA-KC) lost 1.6-3.3x. Here the split is written out: one producer warp issues each
K block's three TMA boxes (the tile's rows of the activations in the tiles' row order, the expert's up and gate W1
rows) into a ring of ``STAGES`` buffers, each with a "ready" mbarrier (TMA bytes) and an "empty" one (the consumers
are done with it); the consumer warp groups wait for "ready", run the up and gate wgmmas, arrive on "empty" and
promote each into its fp32 accumulator with the rows' and the weight block's scales. No CTA barrier in the loop
(Triton 3.6 still puts a partition-wide ``bar.sync`` before a multi-warp partition's ``mbarrier.arrive``).

``_gemm1_gluon_ws_kernel``: one consumer partition of 4 warps (at ``maxnreg=128`` two programs share an SM, so one
program's FMAs overlap the other's wgmma) or 8 (two warp groups splitting N as the retained kernel's, or on
``BLOCK_M`` 128 splitting M: half the W1 boxes per routed row, for the L2 bound of call KH's Nsight Compute).
``_gemm1_gluon_ws2_kernel``: 128-row tiles, each 64-row half its own partition with its own arrivals (an "empty"
barrier of count 2), the rows' scales read coalesced from their copy in the tiles' row order.

Same tile table, grid (tile, N block), scales, epilogue (``silu(gate) * up`` quantised to e4m3 per (row, 128
columns)) and outputs as q8td's GEMM1. No early return for an empty tile: launch it over the tiles with rows (the
retained plan's exact grid).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait

from benchmarks.moe_gemm1_sweep import seed_module

#: this program's tile (axis 0) of the (expert, first row, rows) table: q8gl's reader
_tile = seed_module("moe_grouped_fp8_q8gl", "gluon_kernels")._tile
#: a TMA load into shared memory: ``tma.async_load`` in newer Gluon, ``async_copy_global_to_shared`` before
_tma_load = tma.async_load if hasattr(tma, "async_load") else tma.async_copy_global_to_shared


@gluon.jit
def _store_h(acc_u, acc_g, rows_idx, mask_m, pid_n, h_ptr, hs_ptr, I: gl.constexpr, BLOCK_N: gl.constexpr,
             QMAX: gl.constexpr, col_l: gl.constexpr):
    """The epilogue: ``silu(gate) * up`` (as the reference) quantised to e4m3 with one scale per row of the
    program's ``BLOCK_N`` columns, into ``h`` and ``hs`` at the sorted rows ``rows_idx``."""
    h = acc_g / (1.0 + gl.exp(-acc_g)) * acc_u
    scale = gl.maximum(gl.max(gl.abs(h), axis=1), 1e-30) / QMAX
    q = h / scale[:, None]
    offs_n = pid_n * BLOCK_N + gl.arange(0, BLOCK_N, layout=col_l)
    mask = mask_m[:, None] & (offs_n[None, :] < I)
    gl.store(h_ptr + rows_idx[:, None] * I + offs_n[None, :], q.to(h_ptr.dtype.element_ty), mask=mask)
    gl.store(hs_ptr + rows_idx * (I // BLOCK_N) + pid_n, scale, mask=mask_m)


@gluon.jit
def _ring(xs_desc, w_desc, STAGES: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
          CONSUMERS: gl.constexpr):
    """The ring: ``STAGES`` activation, up and gate boxes, a "ready" mbarrier per buffer (the TMA bytes) and an
    "empty" one (``CONSUMERS`` arrivals)."""
    a_bufs = gl.allocate_shared_memory(xs_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], xs_desc.layout)
    u_bufs = gl.allocate_shared_memory(w_desc.dtype, [STAGES, BLOCK_N, BLOCK_K], w_desc.layout)
    g_bufs = gl.allocate_shared_memory(w_desc.dtype, [STAGES, BLOCK_N, BLOCK_K], w_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=CONSUMERS)
    return a_bufs, u_bufs, g_bufs, ready, empty


@gluon.jit
def _release(ready, empty, STAGES: gl.constexpr):
    """The ring's barriers invalidated once the loop is done."""
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


@gluon.jit
def _producer(xs_desc, w_desc, a_bufs, u_bufs, g_bufs, ready, empty, row_a, row_up, row_gate,
              KB: gl.constexpr, BLOCK_K: gl.constexpr):
    """One warp: K block kb's boxes into buffer kb % STAGES once the consumer has emptied it."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    NBYTES: gl.constexpr = xs_desc.block_type.nbytes + 2 * w_desc.block_type.nbytes
    for kb in range(KB):
        s = kb % STAGES
        mbarrier.wait(empty.index(s), ((kb // STAGES) & 1) ^ 1)  # a fresh barrier passes phase 1 at once
        bar = ready.index(s)
        mbarrier.expect(bar, NBYTES)
        _tma_load(xs_desc, [row_a, kb * BLOCK_K], bar, a_bufs.index(s))
        _tma_load(w_desc, [row_up, kb * BLOCK_K], bar, u_bufs.index(s))
        _tma_load(w_desc, [row_gate, kb * BLOCK_K], bar, g_bufs.index(s))


@gluon.jit
def _consumer(a_bufs, u_bufs, g_bufs, ready, empty, scale_ptr, scale_stride, scale_idx, mask_m, s_up, s_gate,
              KB: gl.constexpr, ROW0: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, mma: gl.constexpr,
              BOTH: gl.constexpr):
    """A consumer warp group: per K block the up and gate wgmmas of rows ``ROW0 ... ROW0 + ROWS`` of the ready
    activation box against the weight boxes, each promoted with its scales (the rows' at ``scale_ptr + kb *
    scale_stride + scale_idx``, loaded one K block ahead, and the weight block's); its arrival on "empty" once both
    wgmmas are back. ``BOTH``: both wgmmas in flight, up promoted while gate runs (two [64, 64] results fit in
    registers); else one [64, 128] result at a time, gate issued once up is back."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    zero = gl.zeros([ROWS, BLOCK_N], gl.float32, mma)
    acc_u = gl.zeros([ROWS, BLOCK_N], gl.float32, mma)
    acc_g = gl.zeros([ROWS, BLOCK_N], gl.float32, mma)
    xa = gl.load(scale_ptr + scale_idx, mask=mask_m, other=0.0)
    su = gl.load(s_up)
    sg = gl.load(s_gate)
    for kb in range(KB):
        s = kb % STAGES
        nk = gl.minimum(kb + 1, KB - 1)  # the next K block's scales, loaded while this block's wgmmas run
        xa_next = gl.load(scale_ptr + nk * scale_stride + scale_idx, mask=mask_m, other=0.0)
        su_next = gl.load(s_up + nk)
        sg_next = gl.load(s_gate + nk)
        mbarrier.wait(ready.index(s), (kb // STAGES) & 1)
        if ROWS == a_bufs.type.shape[1]:
            a = a_bufs.index(s)
        else:  # this warp group's rows of a taller box
            a = a_bufs.index(s).slice(ROW0, ROWS)
        tu = warpgroup_mma(a, u_bufs.index(s).permute((1, 0)), zero, use_acc=False, is_async=True)
        if BOTH:
            tg = warpgroup_mma(a, g_bufs.index(s).permute((1, 0)), zero, use_acc=False, is_async=True)
            tu = warpgroup_mma_wait(num_outstanding=1, deps=(tu, ))
        else:
            tu = warpgroup_mma_wait(num_outstanding=0, deps=(tu, ))
            tg = warpgroup_mma(a, g_bufs.index(s).permute((1, 0)), zero, use_acc=False, is_async=True)
        acc_u += tu * (xa * su)[:, None]  # up's promotion while gate's wgmma runs
        tg = warpgroup_mma_wait(num_outstanding=0, deps=(tg, ))
        mbarrier.arrive(empty.index(s), count=1)
        acc_g += tg * (xa * sg)[:, None]
        xa, su, sg = xa_next, su_next, sg_next
    return acc_u, acc_g


@gluon.jit
def _gemm1_gluon_ws_kernel(xs_desc, w_desc, a_scale_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T,
                           H: gl.constexpr, I: gl.constexpr, TOPK: gl.constexpr,
                           BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
                           STAGES: gl.constexpr, QMAX: gl.constexpr, num_warps: gl.constexpr):
    """Program (tile, n): rows ``start ... start + rows`` of the sorted pairs (one expert) times that expert's W1
    rows ``n * BLOCK_N ...`` (up) and ``I + n * BLOCK_N ...`` (gate); writes ``h`` (e4m3) and its per-row scale.
    ``BLOCK_M`` 64: ``num_warps`` 4 (one consumer warp group) or 8 (two, splitting the N columns as the retained
    kernel's); ``BLOCK_M`` 128: ``num_warps`` 8, two warp groups of 64 rows each sharing every weight box (half the
    W1 traffic from L2 of 64-row tiles)."""
    pid_n = gl.program_id(1)
    expert, start, rows = _tile(tile_ptr)

    WM: gl.constexpr = BLOCK_M // 64  # consumer warp groups stacked along M (64 rows each) ...
    WN: gl.constexpr = num_warps // (4 * WM)  # ... and side by side along N
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4 * WM, WN],
                                                  instr_shape=[16, BLOCK_N // WN, 32])
    BOTH: gl.constexpr = WN == 2
    row_l: gl.constexpr = gl.SliceLayout(1, mma)
    col_l: gl.constexpr = gl.SliceLayout(0, mma)
    offs_m = gl.arange(0, BLOCK_M, layout=row_l)
    mask_m = offs_m < rows
    token = gl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(gl.int64) // TOPK

    a_bufs, u_bufs, g_bufs, ready, empty = _ring(xs_desc, w_desc, STAGES, BLOCK_M, BLOCK_N, BLOCK_K, 1)

    row_a = start.to(gl.int32)
    row_up = (expert * (2 * I) + pid_n * BLOCK_N).to(gl.int32)
    row_gate = row_up + I
    KB: gl.constexpr = H // BLOCK_K
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (pid_n * BLOCK_N // BLOCK_K) * KB
    s_gate = s_up + (I // BLOCK_K) * KB

    acc_u, acc_g = gl.warp_specialize([
        (_consumer, (a_bufs, u_bufs, g_bufs, ready, empty, a_scale_ptr, T, token, mask_m, s_up, s_gate, KB, 0,
                     BLOCK_M, BLOCK_N, mma, BOTH)),
        (_producer, (xs_desc, w_desc, a_bufs, u_bufs, g_bufs, ready, empty, row_a, row_up, row_gate, KB, BLOCK_K)),
    ], [1], [24])
    _release(ready, empty, STAGES)

    _store_h(acc_u, acc_g, start.to(gl.int64) + offs_m, mask_m, pid_n, h_ptr, hs_ptr, I, BLOCK_N, QMAX, col_l)


@gluon.jit
def _rows_consumer(a_bufs, u_bufs, g_bufs, ready, empty, xs_scale_ptr, s_up, s_gate, start, rows, n_rows, h_ptr,
                   hs_ptr, pid_n, KB: gl.constexpr, BLOCK_N: gl.constexpr, I: gl.constexpr, QMAX: gl.constexpr,
                   WG: gl.constexpr):
    """Warp group ``WG`` of a 128-row tile: rows ``WG * 64 ...`` of every ready activation box against the shared
    weight boxes (:func:`_consumer`), its own arrival on "empty" (two per buffer), its own epilogue. The rows' scales
    come from their copy in the tiles' row order (``xs_scale`` [KB, n_rows]: one coalesced [64] load per K block)."""
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_N, 32])
    row_l: gl.constexpr = gl.SliceLayout(1, mma)
    col_l: gl.constexpr = gl.SliceLayout(0, mma)
    offs_m = WG * 64 + gl.arange(0, 64, layout=row_l)
    mask_m = offs_m < rows
    sorted_row = start + offs_m
    acc_u, acc_g = _consumer(a_bufs, u_bufs, g_bufs, ready, empty, xs_scale_ptr, n_rows, sorted_row, mask_m, s_up,
                             s_gate, KB, WG * 64, 64, BLOCK_N, mma, False)
    _store_h(acc_u, acc_g, sorted_row.to(gl.int64), mask_m, pid_n, h_ptr, hs_ptr, I, BLOCK_N, QMAX, col_l)


@gluon.jit
def _worker(xs_desc, w_desc, a_bufs, u_bufs, g_bufs, ready, empty, xs_scale_ptr, s_up, s_gate, start, rows, n_rows,
            h_ptr, hs_ptr, pid_n, row_up, row_gate, KB: gl.constexpr, BLOCK_K: gl.constexpr, BLOCK_N: gl.constexpr,
            I: gl.constexpr, QMAX: gl.constexpr, ROLE: gl.constexpr):
    """The worker partitions share one signature: ``ROLE`` 0 the producer warp, 1 the second consumer warp group."""
    if ROLE == 0:
        _producer(xs_desc, w_desc, a_bufs, u_bufs, g_bufs, ready, empty, start, row_up, row_gate, KB, BLOCK_K)
    else:
        _rows_consumer(a_bufs, u_bufs, g_bufs, ready, empty, xs_scale_ptr, s_up, s_gate, start, rows, n_rows, h_ptr,
                       hs_ptr, pid_n, KB, BLOCK_N, I, QMAX, 1)


@gluon.jit
def _gemm1_gluon_ws2_kernel(xs_desc, w_desc, xs_scale_ptr, w_scale_ptr, tile_ptr, h_ptr, hs_ptr, n_rows,
                            H: gl.constexpr, I: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
                            STAGES: gl.constexpr, QMAX: gl.constexpr, CONSUMER_REGS: gl.constexpr,
                            num_warps: gl.constexpr):
    """Program (tile, n) of a 128-row tile table: two consumer warp groups, each its own partition (the default one
    rows 0-63, a worker rows 64-127) and its own arrival on a buffer's "empty" barrier (no barrier between them),
    sharing every weight box; one producer warp. ``xs_scale`` [H / 128, n_rows]: the activations' block scales in the
    tiles' row order. ``num_warps`` 4."""
    pid_n = gl.program_id(1)
    expert, start, rows = _tile(tile_ptr)

    # "empty" of count 2: both consumer warp groups arrive
    a_bufs, u_bufs, g_bufs, ready, empty = _ring(xs_desc, w_desc, STAGES, 128, BLOCK_N, BLOCK_K, 2)

    row_up = (expert * (2 * I) + pid_n * BLOCK_N).to(gl.int32)
    row_gate = row_up + I
    KB: gl.constexpr = H // BLOCK_K
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (pid_n * BLOCK_N // BLOCK_K) * KB
    s_gate = s_up + (I // BLOCK_K) * KB
    gl.warp_specialize([
        (_rows_consumer, (a_bufs, u_bufs, g_bufs, ready, empty, xs_scale_ptr, s_up, s_gate, start, rows, n_rows,
                          h_ptr, hs_ptr, pid_n, KB, BLOCK_N, I, QMAX, 0)),
        (_worker, (xs_desc, w_desc, a_bufs, u_bufs, g_bufs, ready, empty, xs_scale_ptr, s_up, s_gate, start, rows,
                   n_rows, h_ptr, hs_ptr, pid_n, row_up, row_gate, KB, BLOCK_K, BLOCK_N, I, QMAX, 0)),
        (_worker, (xs_desc, w_desc, a_bufs, u_bufs, g_bufs, ready, empty, xs_scale_ptr, s_up, s_gate, start, rows,
                   n_rows, h_ptr, hs_ptr, pid_n, row_up, row_gate, KB, BLOCK_K, BLOCK_N, I, QMAX, 1)),
    ], [1, 4], [24, CONSUMER_REGS])
    _release(ready, empty, STAGES)
