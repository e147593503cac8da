"""The long calls' two FP8 GEMMs in Gluon, each keeping one wgmma in flight while the other's block-scale FMAs run.

Why. Triton makes a dot asynchronous only when its result feeds the next dot as the accumulator. In q8's GEMMs every
K block's dot is scaled (rows' x weight block's scales) before it is added, so the compiled loops wait for each
wgmma (``warp_group_dot_wait {pendings = 0}``) and the tensor cores idle during the FMAs: GEMM1 ran at ~0.55 and
GEMM2 at ~0.51 of the H200's measured FP8 rate at 14,107 tokens (calls CF / CM). Here each program issues its
wgmmas itself, asynchronously, as two independent halves: GEMM1 ``up(k)``, [wait for ``gate(k-1)``, its FMAs],
``gate(k)``, [wait for ``up(k)``, its FMAs]; GEMM2 the same over its two column halves. Operands arrive by TMA in
a ring of ``STAGES`` shared-memory buffers (one mbarrier each), refilled once every warp group has passed the
previous K block. GEMM1 reads the activations in the tiles' row order (``xs``, q8td's ``_permute_kernel``): a tile's
rows are one TMA box. Tile table, grids, scales, epilogues and outputs are q8td / q8tw's. Imported only where
Gluon exists (``gluon_gemms.usable``); it has no interpreter.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait

#: a CTA-wide barrier: ``gl.barrier`` in newer Gluon, ``gl.thread_barrier`` in older releases
_cta_barrier = gl.barrier if hasattr(gl, "barrier") else gl.thread_barrier
#: a TMA load into shared memory: ``tma.async_load`` in newer Gluon, ``async_copy_global_to_shared`` before
_tma_load = tma.async_load if hasattr(tma, "async_load") else tma.async_copy_global_to_shared


@gluon.jit
def _load_k_block(a_desc, b_desc, row_a, row_b0, row_b1, k, bar, a_buf, b0_buf, b1_buf, NBYTES: gl.constexpr):
    """One K block's three TMA boxes into their ring buffers, on one mbarrier: the rows' [BM, BK] from ``a_desc``
    and two [BN, BK] weight boxes (GEMM1: up and gate rows; GEMM2: the two column halves) from ``b_desc``."""
    mbarrier.expect(bar, NBYTES)
    _tma_load(a_desc, [row_a, k], bar, a_buf)
    _tma_load(b_desc, [row_b0, k], bar, b0_buf)
    _tma_load(b_desc, [row_b1, k], bar, b1_buf)


@gluon.jit
def _tile(tile_ptr):
    """This program's tile (axis 0) of the (expert, first row, rows) table."""
    tile = gl.program_id(0)
    return (gl.load(tile_ptr + tile * 3).to(gl.int64), gl.load(tile_ptr + tile * 3 + 1),
            gl.load(tile_ptr + tile * 3 + 2))


@gluon.jit
def _gemm1_gluon_kernel(xs_desc, w_desc, a_scale_ptr, w_scale_ptr, tile_ptr, order_ptr, h_ptr, hs_ptr, T,
                        H: gl.constexpr, I: gl.constexpr, TOPK: gl.constexpr,
                        BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr,
                        STAGES: gl.constexpr, QMAX: gl.constexpr, num_warps: gl.constexpr):
    """Program (tile, n): rows ``start ... start + rows`` of the sorted pairs (one expert) times that expert's W1
    rows ``n * BLOCK_N ...`` (up) and ``I + n * BLOCK_N ...`` (gate); writes ``h`` (e4m3) and its per-row scale."""
    pid_n = gl.program_id(1)
    expert, start, rows = _tile(tile_ptr)
    if rows == 0:
        return

    WN: gl.constexpr = num_warps // 4  # warp groups side by side along N
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, WN],
                                                  instr_shape=[16, BLOCK_N // WN, 32])
    row_l: gl.constexpr = gl.SliceLayout(1, mma)
    col_l: gl.constexpr = gl.SliceLayout(0, mma)
    offs_m = gl.arange(0, BLOCK_M, layout=row_l)
    mask_m = offs_m < rows
    token = gl.load(order_ptr + start + offs_m, mask=mask_m, other=0).to(gl.int64) // TOPK

    a_bufs = gl.allocate_shared_memory(xs_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], xs_desc.layout)
    u_bufs = gl.allocate_shared_memory(w_desc.dtype, [STAGES, BLOCK_N, BLOCK_K], w_desc.layout)
    g_bufs = gl.allocate_shared_memory(w_desc.dtype, [STAGES, BLOCK_N, BLOCK_K], w_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)

    row_a = start.to(gl.int32)
    row_up = (expert * (2 * I) + pid_n * BLOCK_N).to(gl.int32)
    row_gate = row_up + I
    KB: gl.constexpr = H // BLOCK_K
    s_up = w_scale_ptr + expert * (2 * I // BLOCK_K) * KB + (pid_n * BLOCK_N // BLOCK_K) * KB
    s_gate = s_up + (I // BLOCK_K) * KB
    NBYTES: gl.constexpr = xs_desc.block_type.nbytes + 2 * w_desc.block_type.nbytes

    # the first STAGES K blocks, one per buffer (KB >= STAGES: H is 7,168); K block kb + STAGES - 1 goes into the
    # buffer of K block kb - 1 once that block's wgmmas are done (iteration kb)
    for s in gl.static_range(STAGES):
        _load_k_block(xs_desc, w_desc, row_a, row_up, row_gate, s * BLOCK_K, bars.index(s), a_bufs.index(s),
                      u_bufs.index(s), g_bufs.index(s), NBYTES)

    zero = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, mma)
    acc_u = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, mma)
    acc_g = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, mma)

    # K block 0: up and gate issued, up promoted while gate runs
    xa = gl.load(a_scale_ptr + token, mask=mask_m, other=0.0)
    su = gl.load(s_up)
    sg = gl.load(s_gate)
    mbarrier.wait(bars.index(0), 0)
    tu = warpgroup_mma(a_bufs.index(0), u_bufs.index(0).permute((1, 0)), zero, use_acc=False, is_async=True)
    tg = warpgroup_mma(a_bufs.index(0), g_bufs.index(0).permute((1, 0)), zero, use_acc=False, is_async=True)
    tu = warpgroup_mma_wait(num_outstanding=1, deps=(tu, ))
    acc_u += tu * (xa * su)[:, None]
    sc_g = xa * sg

    for kb in range(1, KB):
        cur = kb % STAGES
        xa = gl.load(a_scale_ptr + kb * T + token, mask=mask_m, other=0.0)
        su = gl.load(s_up + kb)
        sg = gl.load(s_gate + kb)
        mbarrier.wait(bars.index(cur), (kb // STAGES) & 1)
        tu = warpgroup_mma(a_bufs.index(cur), u_bufs.index(cur).permute((1, 0)), zero, use_acc=False, is_async=True)
        tg = warpgroup_mma_wait(num_outstanding=1, deps=(tg, ))  # gate(k-1) done; up(k) runs
        acc_g += tg * sc_g[:, None]
        # K block kb - 1's buffers are free once every warp group has waited for its gate(k-1): refill them
        _cta_barrier()
        nk = kb + STAGES - 1
        if nk < KB:
            ps = nk % STAGES
            _load_k_block(xs_desc, w_desc, row_a, row_up, row_gate, nk * BLOCK_K, bars.index(ps), a_bufs.index(ps),
                          u_bufs.index(ps), g_bufs.index(ps), NBYTES)
        tg = warpgroup_mma(a_bufs.index(cur), g_bufs.index(cur).permute((1, 0)), zero, use_acc=False, is_async=True)
        tu = warpgroup_mma_wait(num_outstanding=1, deps=(tu, ))  # up(k) done; gate(k) runs
        acc_u += tu * (xa * su)[:, None]
        sc_g = xa * sg

    tg = warpgroup_mma_wait(num_outstanding=0, deps=(tg, ))
    acc_g += tg * sc_g[:, None]
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))

    h = acc_g / (1.0 + gl.exp(-acc_g)) * acc_u  # silu(X2) * X1, as the reference
    scale = gl.maximum(gl.max(gl.abs(h), axis=1), 1e-30) / QMAX
    q = h / scale[:, None]
    rows_idx = start.to(gl.int64) + offs_m
    offs_n = pid_n * BLOCK_N + gl.arange(0, BLOCK_N, layout=col_l)
    mask = mask_m[:, None] & (offs_n[None, :] < I)
    gl.store(h_ptr + rows_idx[:, None] * I + offs_n[None, :], q.to(h_ptr.dtype.element_ty), mask=mask)
    gl.store(hs_ptr + rows_idx * (I // BLOCK_N) + pid_n, scale, mask=mask_m)


@gluon.jit
def _gemm2_gluon_kernel(h_desc, w_desc, hs_ptr, w_scale_ptr, tile_ptr, y_ptr,
                        H: gl.constexpr, I: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                        BLOCK_K: gl.constexpr, STAGES: gl.constexpr, num_warps: gl.constexpr):
    """Program (tile, n) of GEMM2: the tile's FP8 intermediate rows times W2 rows ``n * BLOCK_N ...`` of its expert,
    as two column halves whose wgmmas alternate with the other half's block-scale FMAs; bf16 rows into ``y``.
    ``BLOCK_N`` <= 128 (one W2 scale block per K step), ``BLOCK_K`` = GEMM1's BLOCK_N (the intermediate's scale
    group) = 128."""
    pid_n = gl.program_id(1)
    expert, start, rows = _tile(tile_ptr)
    if rows == 0:
        return

    HALF: gl.constexpr = BLOCK_N // 2
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                  instr_shape=[16, HALF, 32])
    row_l: gl.constexpr = gl.SliceLayout(1, mma)
    col_l: gl.constexpr = gl.SliceLayout(0, mma)
    offs_m = gl.arange(0, BLOCK_M, layout=row_l)
    mask_m = offs_m < rows
    rows_idx = start.to(gl.int64) + offs_m
    KQ: gl.constexpr = I // BLOCK_K
    hs_rows = hs_ptr + rows_idx * KQ
    s_w = w_scale_ptr + expert * (H // 128) * KQ + ((pid_n * BLOCK_N) // 128) * KQ  # W2 scales [E, H/128, I/128]

    h_bufs = gl.allocate_shared_memory(h_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], h_desc.layout)
    lo_bufs = gl.allocate_shared_memory(w_desc.dtype, [STAGES, HALF, BLOCK_K], w_desc.layout)
    hi_bufs = gl.allocate_shared_memory(w_desc.dtype, [STAGES, HALF, BLOCK_K], w_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)
    row_h = start.to(gl.int32)
    row_lo = (expert * H + pid_n * BLOCK_N).to(gl.int32)
    row_hi = row_lo + HALF
    NBYTES: gl.constexpr = h_desc.block_type.nbytes + 2 * w_desc.block_type.nbytes
    for s in gl.static_range(STAGES):  # as GEMM1: the first STAGES K blocks (KQ = 16 >= STAGES)
        _load_k_block(h_desc, w_desc, row_h, row_lo, row_hi, s * BLOCK_K, bars.index(s), h_bufs.index(s),
                      lo_bufs.index(s), hi_bufs.index(s), NBYTES)

    zero = gl.zeros([BLOCK_M, HALF], gl.float32, mma)
    acc_lo = gl.zeros([BLOCK_M, HALF], gl.float32, mma)
    acc_hi = gl.zeros([BLOCK_M, HALF], gl.float32, mma)
    sc = gl.load(hs_rows, mask=mask_m, other=0.0) * gl.load(s_w)
    mbarrier.wait(bars.index(0), 0)
    tlo = warpgroup_mma(h_bufs.index(0), lo_bufs.index(0).permute((1, 0)), zero, use_acc=False, is_async=True)
    thi = warpgroup_mma(h_bufs.index(0), hi_bufs.index(0).permute((1, 0)), zero, use_acc=False, is_async=True)
    tlo = warpgroup_mma_wait(num_outstanding=1, deps=(tlo, ))
    acc_lo += tlo * sc[:, None]
    sc_hi = sc
    for kq in range(1, KQ):
        cur = kq % STAGES
        sc = gl.load(hs_rows + kq, mask=mask_m, other=0.0) * gl.load(s_w + kq)
        mbarrier.wait(bars.index(cur), (kq // STAGES) & 1)
        tlo = warpgroup_mma(h_bufs.index(cur), lo_bufs.index(cur).permute((1, 0)), zero, use_acc=False,
                            is_async=True)
        thi = warpgroup_mma_wait(num_outstanding=1, deps=(thi, ))
        acc_hi += thi * sc_hi[:, None]
        _cta_barrier()
        nk = kq + STAGES - 1
        if nk < KQ:
            ps = nk % STAGES
            _load_k_block(h_desc, w_desc, row_h, row_lo, row_hi, nk * BLOCK_K, bars.index(ps), h_bufs.index(ps),
                          lo_bufs.index(ps), hi_bufs.index(ps), NBYTES)
        thi = warpgroup_mma(h_bufs.index(cur), hi_bufs.index(cur).permute((1, 0)), zero, use_acc=False,
                            is_async=True)
        tlo = warpgroup_mma_wait(num_outstanding=1, deps=(tlo, ))
        acc_lo += tlo * sc[:, None]
        sc_hi = sc
    thi = warpgroup_mma_wait(num_outstanding=0, deps=(thi, ))
    acc_hi += thi * sc_hi[:, None]
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))

    offs_n = pid_n * BLOCK_N + gl.arange(0, HALF, layout=col_l)
    mask = mask_m[:, None] & (offs_n[None, :] < H)
    ptrs = y_ptr + rows_idx[:, None] * H + offs_n[None, :]
    gl.store(ptrs, acc_lo.to(y_ptr.dtype.element_ty), mask=mask)
    gl.store(ptrs + HALF, acc_hi.to(y_ptr.dtype.element_ty), mask=mask)
