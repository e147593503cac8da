"""Special evaluators: DSA top-k indexer (set quality), DSA sparse attention (optional lse), MoE."""

from __future__ import annotations

import math

import pytest
import torch

from kernelopt.data import EvaluationStatus as S
from kernelopt.data import HarnessSettings
from kernelopt.harness.evaluators import (
    DsaSparseAttentionEvaluator,
    DsaTopkIndexerEvaluator,
    Evaluator,
    LowBitEvaluator,
    OutputFormatError,
    select_evaluator,
)
from kernelopt.harness.indexer_scores import gather_keys, indexer_scores, validate_indices
from kernelopt.harness.reference import run_reference
from kernelopt.operators import load_operator

INDEXER = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
ATTENTION = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"


def pack_k_cache(keys: torch.Tensor) -> torch.Tensor:
    """DeepGEMM packing of float keys [N, ps, D]: per page fp8 keys first, then fp32 per-token scales."""
    n, ps, d = keys.shape
    scale = keys.abs().amax(dim=-1, keepdim=True).clamp(min=1e-4) / 448.0
    fp8 = (keys / scale).to(torch.float8_e4m3fn)
    packed = torch.empty(n, ps * (d + 4), dtype=torch.uint8)
    packed[:, : ps * d] = fp8.reshape(n, ps * d).view(torch.uint8)
    packed[:, ps * d:] = scale.reshape(n, ps).contiguous().view(torch.uint8).reshape(n, ps * 4)
    return packed.view(torch.int8).reshape(n, ps, 1, d + 4)


# -- tiny hand-built cases (page_size 4) ---------------------------------------------------------------

def test_gather_keys_dequantises_the_packed_layout():
    keys = torch.tensor([[[1.0, -2.0], [0.5, 0.25]], [[4.0, 8.0], [-1.0, 1.0]]])  # [N=2, ps=2, D=2]
    cache = pack_k_cache(keys)
    ids = torch.tensor([[3, 0, -1]])  # page 1 offset 1, page 0 offset 0, padding
    got = gather_keys(cache, ids, page_size=2)
    assert torch.allclose(got[0, 0], keys[1, 1], rtol=0.07)
    assert torch.allclose(got[0, 1], keys[0, 0], rtol=0.07)
    assert torch.equal(got[0, 2], torch.zeros(2))


def test_validate_indices_cases():
    table = torch.tensor([[5, 2, 7]])  # row 0 uses pages 5 and 2 (seq_len 6, page_size 4)
    lens = torch.tensor([6])
    ok = torch.tensor([[21, 20, 8, 9, 22, 23, -1, -1]])  # page 5 offsets 0-3, page 2 offsets 0-1
    assert validate_indices(ok, lens, table, 4) == []
    assert validate_indices(ok[:, torch.randperm(8)], lens, table, 4) == []
    dup = torch.tensor([[21, 21, 8, 9, 22, 23, -1, -1]])
    assert "duplicate" in validate_indices(dup, lens, table, 4)[0]
    beyond_len = torch.tensor([[21, 20, 8, 10, 22, 23, -1, -1]])  # page 2 offset 2 = position 6 >= 6
    assert "unreachable" in validate_indices(beyond_len, lens, table, 4)[0]
    other_page = torch.tensor([[21, 20, 8, 28, 22, 23, -1, -1]])  # page 7 is past ceil(6/4) = 2 pages
    assert "unreachable" in validate_indices(other_page, lens, table, 4)[0]
    too_few = torch.tensor([[21, 20, 8, 9, 22, -1, -1, -1]])
    assert "expected min" in validate_indices(too_few, lens, table, 4)[0]
    bad_pad = torch.tensor([[21, 20, 8, 9, 22, 23, -5, -1]])
    assert "negative" in validate_indices(bad_pad, lens, table, 4)[0]


def test_indexer_scores_match_a_direct_computation():
    torch.manual_seed(0)
    keys = torch.randn(3, 4, 8)
    cache = pack_k_cache(keys)
    q = torch.randn(1, 2, 8).to(torch.float8_e4m3fn)
    w = torch.randn(1, 2)
    ids = torch.tensor([[0, 5, 11, -1]])
    s = indexer_scores(q, cache, w, ids, page_size=4)
    k = gather_keys(cache, ids, 4)[0]
    want = (torch.relu(q.float()[0] @ k.T) * w[0, :, None]).sum(0)
    assert torch.allclose(s[0, :3], want[:3]) and s[0, 3] == float("-inf")


# -- the real indexer definition ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def indexer_case():
    defn = load_operator(INDEXER).definition
    g = torch.Generator().manual_seed(3)
    n_pages, seq_len = 40, 2100  # 33 pages used: more tokens than topk, so the set matters
    pages = torch.randperm(n_pages, generator=g)[:34].to(torch.int32)
    inputs = {
        "q_index_fp8": torch.randn(1, 64, 128, generator=g).clamp(-2, 2).to(torch.float8_e4m3fn),
        "k_index_cache_fp8": pack_k_cache(torch.randn(n_pages, 64, 128, generator=g)),
        "weights": torch.randn(1, 64, generator=g),
        "seq_lens": torch.tensor([seq_len], dtype=torch.int32),
        "block_table": pages.reshape(1, 34),
    }
    ref = run_reference(defn, inputs)
    return defn, inputs, ref


def _check(case, sol):
    defn, inputs, ref = case
    return DsaTopkIndexerEvaluator().check(defn, inputs, [sol], ref, HarnessSettings())


def test_indexer_same_set_in_another_order_passes(indexer_case):
    ref = indexer_case[2]["topk_indices"]
    v = _check(indexer_case, ref[:, torch.randperm(ref.shape[1])])
    assert v.status is None and v.max_abs == 0.0


def test_indexer_duplicate_or_unreachable_index_fails_with_inf(indexer_case):
    _, inputs, ref = indexer_case
    dup = ref["topk_indices"].clone()
    dup[0, 1] = dup[0, 0]
    v = _check(indexer_case, dup)
    assert v.status == S.INCORRECT_NUMERICAL and math.isinf(v.max_abs) and "duplicate" in v.message
    table = inputs["block_table"][0].tolist()
    foreign = next(p for p in range(40) if p not in table)
    bad = ref["topk_indices"].clone()
    bad[0, 0] = foreign * 64
    v = _check(indexer_case, bad)
    assert v.status == S.INCORRECT_NUMERICAL and "unreachable" in v.message


def test_indexer_worse_set_fails_on_scores(indexer_case):
    _, inputs, ref = indexer_case
    sel = ref["topk_indices"][0]
    table = inputs["block_table"][0].long()
    all_ids = (table[:33, None] * 64 + torch.arange(64)).reshape(-1)[:2100]
    scores = indexer_scores(inputs["q_index_fp8"], inputs["k_index_cache_fp8"], inputs["weights"],
                            all_ids[None].to(torch.int32), 64)[0]
    unselected = all_ids[~torch.isin(all_ids, sel.long())]
    worst = unselected[scores[~torch.isin(all_ids, sel.long())].argmin()]
    sol = ref["topk_indices"].clone()
    sol[0, 0] = int(worst)  # drop the best token for the worst one
    v = _check(indexer_case, sol)
    assert v.status == S.INCORRECT_NUMERICAL and "selected-score mismatch" in v.message


# -- DSA sparse attention / MoE / selection ------------------------------------------------------------

def test_sparse_attention_accepts_output_alone_or_with_lse_and_matches_shared_minus_inf():
    defn = load_operator(ATTENTION).definition
    ev = DsaSparseAttentionEvaluator()
    out = torch.randn(2, 16, 512).to(torch.bfloat16)
    lse = torch.randn(2, 16)
    lse[1] = float("-inf")  # token with no valid index
    refs = {"output": out.clone(), "lse": lse.clone()}
    s = HarnessSettings()
    assert len(ev.normalize(defn, out, torch.device("cpu"))) == 1
    assert ev.check(defn, {}, [out], refs, s).status is None
    assert ev.check(defn, {}, ev.normalize(defn, (out, lse), torch.device("cpu")), refs, s).status is None
    nan_lse = lse.clone()
    nan_lse[0, 0] = float("nan")
    assert ev.check(defn, {}, [out, nan_lse], refs, s).status == S.INCORRECT_NUMERICAL
    with pytest.raises(OutputFormatError):
        ev.normalize(defn, (out, lse, lse), torch.device("cpu"))


def test_default_normalize_rejects_wrong_arity():
    defn = load_operator(ATTENTION).definition
    with pytest.raises(OutputFormatError):
        Evaluator().normalize(defn, torch.zeros(1), torch.device("cpu"))


def test_selection_by_definition_name():
    assert isinstance(select_evaluator(load_operator(INDEXER).definition), DsaTopkIndexerEvaluator)
    assert isinstance(select_evaluator(load_operator(ATTENTION).definition), DsaSparseAttentionEvaluator)
    moe = load_operator("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048").definition
    assert isinstance(select_evaluator(moe), LowBitEvaluator)
    assert type(select_evaluator(load_operator("rmsnorm_h4096").definition)) is Evaluator
    assert isinstance(select_evaluator(moe, "default"), Evaluator)
    with pytest.raises(ValueError, match="unknown evaluator"):
        select_evaluator(moe, "nope")


def test_lowbit_reports_matched_ratio():
    moe = load_operator("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048").definition
    ref = torch.ones(4, 8, dtype=torch.bfloat16)
    out = ref.clone()
    out[0, :3] = 5.0  # 3 of 32 off -> ratio 0.90625 >= 0.9 passes with the contest flags
    v = LowBitEvaluator().check(moe, {}, [out], {"output": ref},
                                HarnessSettings(atol=1, rtol=0.3, required_matched_ratio=0.9))
    assert v.status is None and v.matched_ratio == pytest.approx(29 / 32)
