"""DeepSeek-V3.2 sparse-attention "lightning indexer" + top-2048 over a paged FP8 key cache, in Triton.

Short rows pass through: when ``max_num_pages * 64 <= 2048`` (P <= 32: 69 of the 128 contest workloads) no
row can hold more than 2048 tokens, so the top-2048 of a row is all of its ``seq_len`` tokens, whatever
their scores (the reference's ``topk(min(2048, seq_len))`` selects every one, and the evaluator compares
the selected scores as a set). One launch, ``_pass_through_kernel``, writes each row's global token ids
``block_table[b, p // 64] * 64 + p % 64`` for ``p < seq_len`` and ``-1`` after: nothing is scored.
(The paper's "short-row pass-through" path, REFERENCE §2.) Longer contexts take three steps, each one launch:

1. ``_indexer_scores_kernel`` - one program per (batch row, span of BLOCKS * BN sequence positions).
   The row's 64x128 FP8 query is loaded once; for every tile of BN positions the program looks up
   the pages in the block table, loads the tile's FP8 key bytes ``[128, BN]`` and per-token fp32
   scales straight from the DeepGEMM packed page (per page: 64x128 fp8 bytes, then 64 fp32 scales),
   and computes, in fp32,

       score[pos] = sum_h w[h] * relu(scale[pos] * (q_h . k8[pos]))

   (the scale multiplies the dot's columns before the ReLU, as the reference's dequantised keys
   do). ``q_h . k8`` is one ``tl.dot`` ``[64,128] x [128,BN]`` with fp32 accumulation: DOT="tf32"
   converts the fp8 bytes to fp32 first (every e4m3 value is exact in tf32, so the products are
   exact and only the fp32 accumulation order differs from the reference); DOT="fp8" feeds the raw
   e4m3 operands to the fp8 tensor cores. Positions ``>= seq_len`` get ``-inf``; tiles wholly past
   ``seq_len`` load nothing (the loop bound stops at the last live tile, a second loop only writes
   ``-inf``).
2. ``torch.topk`` (k = min(2048, max_num_pages * 64), unsorted) over the fp32 score matrix
   ``[B, max_num_pages * 64]`` - the simple first selection (the policy bans only torch.compile and
   vendor libraries).
3. ``_translate_kernel`` - one program per row: a selected sequence position ``p`` becomes the global
   token id ``block_table[b, p // 64] * 64 + p % 64`` (the reference's convention); positions whose
   score is ``-inf`` (past ``seq_len``) and the tail beyond k become ``-1``. Rows then hold exactly
   ``min(2048, seq_len)`` valid, unique, reachable ids (the evaluator compares the selected scores as
   a set, so order and ties are free).

Bottlenecks: at long context (P >= 33 pages, up to ~180k tokens per call) the FP8 key bytes (132 B
per token) and the 16 kFLOP per token of the dot, and the launches and the selection.
All addressing is int64. Entry point:
``run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices)`` (DPS).
"""

import torch
import triton
import triton.language as tl

PARAMS = {"BN": 64, "BLOCKS": 2, "DOT": "tf32", "num_warps": 4, "num_stages": 2}  # kernelopt:params

NUM_HEADS = 64
HEAD_DIM = 128
PAGE_SIZE = 64
TOPK = 2048
ROW_BYTES = HEAD_DIM + 4  # fp8 key bytes + one fp32 scale per token


@triton.jit
def _indexer_scores_kernel(
    q_ptr, k_ptr, ks_ptr, w_ptr, seq_lens_ptr, bt_ptr, scores_ptr,
    max_pages, max_pos,
    H: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr, BLOCKS: tl.constexpr,
    FP8_DOT: tl.constexpr,
):
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)

    offs_h = tl.arange(0, H)
    offs_d = tl.arange(0, D)
    offs_n = tl.arange(0, BN)

    seq_len = tl.minimum(tl.load(seq_lens_ptr + b).to(tl.int64), max_pos)
    start0 = pid_n.to(tl.int64) * (BN * BLOCKS)
    n_live = tl.minimum(tl.maximum(tl.cdiv(seq_len - start0, BN), 0), BLOCKS)
    row = scores_ptr + b * max_pos

    # query [H, D] (fp8 bytes) and head weights [H], loaded once per program
    q8 = tl.load(q_ptr + b * (H * D) + offs_h[:, None] * D + offs_d[None, :]).to(tl.float8e4nv, bitcast=True)
    w = tl.load(w_ptr + b * H + offs_h).to(tl.float32)

    for j in range(n_live):
        pos = start0 + j * BN + offs_n  # int64 sequence positions
        valid = pos < seq_len
        page = tl.load(bt_ptr + b * max_pages + pos // PAGE, mask=valid, other=0).to(tl.int64)
        off = pos % PAGE
        # keys: bytes [page * PAGE * (D+4) + off * D + d]; scales: fp32 [page * PAGE*(D+4)/4 + PAGE*D/4 + off]
        k_bytes = tl.load(k_ptr + (page * (PAGE * (D + 4)) + off * D)[None, :] + offs_d[:, None],
                          mask=valid[None, :], other=0)  # [D, BN] uint8
        k8 = k_bytes.to(tl.float8e4nv, bitcast=True)
        scale = tl.load(ks_ptr + page * (PAGE * (D + 4) // 4) + (PAGE * D // 4) + off, mask=valid, other=0.0)
        if FP8_DOT:
            s = tl.dot(q8, k8, out_dtype=tl.float32)
        else:
            s = tl.dot(q8.to(tl.float32), k8.to(tl.float32), input_precision="tf32")  # [H, BN]
        s = tl.maximum(s * scale[None, :], 0.0)
        score = tl.sum(s * w[:, None], axis=0)  # [BN]
        tl.store(row + pos, tl.where(valid, score, float("-inf")), mask=pos < max_pos)

    for j in range(n_live, BLOCKS):
        pos = start0 + j * BN + offs_n
        tl.store(row + pos, tl.full([BN], float("-inf"), tl.float32), mask=pos < max_pos)


@triton.jit
def _translate_kernel(
    pos_ptr, val_ptr, bt_ptr, out_ptr,
    k_sel, max_pages,
    TOPK_C: tl.constexpr, PAGE: tl.constexpr,
):
    b = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, TOPK_C)
    sel = offs < k_sel
    pos = tl.load(pos_ptr + b * k_sel + offs, mask=sel, other=0).to(tl.int64)
    val = tl.load(val_ptr + b * k_sel + offs, mask=sel, other=float("-inf"))
    live = sel & (val != float("-inf"))
    page = tl.load(bt_ptr + b * max_pages + pos // PAGE, mask=live, other=0).to(tl.int64)
    tok = page * PAGE + pos % PAGE
    tl.store(out_ptr + b * TOPK_C + offs, tl.where(live, tok, -1).to(tl.int32))


@triton.jit
def _pass_through_kernel(seq_lens_ptr, bt_ptr, out_ptr, max_pages, max_pos, TOPK_C: tl.constexpr,
                         PAGE: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    seq_len = tl.minimum(tl.load(seq_lens_ptr + b).to(tl.int64), max_pos)
    pos = tl.arange(0, TOPK_C).to(tl.int64)
    live = pos < seq_len
    page = tl.load(bt_ptr + b * max_pages + pos // PAGE, mask=live, other=0).to(tl.int64)
    tl.store(out_ptr + b * TOPK_C + pos, tl.where(live, page * PAGE + pos % PAGE, -1).to(tl.int32))


def _check(name: str, t: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(f"dsa_indexer_scores: {name} has shape {tuple(t.shape)}, expected {shape}")
    return t.contiguous()


def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices) -> None:
    """Write the top-2048 global token ids per row ([B, 2048] int32, -1 padding) into ``topk_indices``."""
    bn, blocks = int(PARAMS["BN"]), int(PARAMS["BLOCKS"])
    if PARAMS["DOT"] not in ("tf32", "fp8"):
        raise ValueError(f"dsa_indexer_scores: DOT={PARAMS['DOT']!r} must be 'tf32' or 'fp8'")
    batch = q_index_fp8.shape[0]
    num_pages = k_index_cache_fp8.shape[0]
    max_pages = block_table.shape[1] if block_table.dim() == 2 else 0
    q = _check("q_index_fp8", q_index_fp8, (batch, NUM_HEADS, HEAD_DIM)).view(torch.uint8)
    kc = _check("k_index_cache_fp8", k_index_cache_fp8, (num_pages, PAGE_SIZE, 1, ROW_BYTES))
    w = _check("weights", weights, (batch, NUM_HEADS)).to(torch.float32)
    lens = _check("seq_lens", seq_lens, (batch,)).to(torch.int32)
    table = _check("block_table", block_table, (batch, max_pages)).to(torch.int32)
    if tuple(topk_indices.shape) != (batch, TOPK) or topk_indices.dtype != torch.int32:
        raise ValueError(f"dsa_indexer_scores: topk_indices must be int32 {(batch, TOPK)}, got "
                         f"{topk_indices.dtype} {tuple(topk_indices.shape)}")
    if not topk_indices.is_contiguous():
        raise ValueError("dsa_indexer_scores: output tensor topk_indices must be contiguous")
    if batch == 0:
        return
    max_pos = max_pages * PAGE_SIZE
    if max_pos == 0:
        topk_indices.fill_(-1)
        return

    if max_pos <= TOPK:  # every row's tokens are its top-2048: pass them through, nothing to score
        _pass_through_kernel[(batch,)](lens, table, topk_indices, max_pages, max_pos, TOPK_C=TOPK,
                                       PAGE=PAGE_SIZE, num_warps=4)
        return

    k_bytes = kc.view(torch.uint8)
    k_scales = kc.view(torch.float32)  # [N, 64, 1, 33]: same bytes, 4-byte words
    scores = torch.empty(batch, max_pos, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(max_pos, bn * blocks), batch)
    _indexer_scores_kernel[grid](
        q, k_bytes, k_scales, w, lens, table, scores, max_pages, max_pos,
        H=NUM_HEADS, D=HEAD_DIM, PAGE=PAGE_SIZE, BN=bn, BLOCKS=blocks, FP8_DOT=PARAMS["DOT"] == "fp8",
        num_warps=int(PARAMS["num_warps"]), num_stages=int(PARAMS["num_stages"]),
    )

    k_sel = min(TOPK, max_pos)
    vals, pos = torch.topk(scores, k_sel, dim=1, largest=True, sorted=False)
    _translate_kernel[(batch,)](
        pos.contiguous(), vals.contiguous(), table, topk_indices, k_sel, max_pages,
        TOPK_C=TOPK, PAGE=PAGE_SIZE, num_warps=4,
    )
