"""Roofline formulas of every operator, checked against arithmetic written out by hand, plus the
ceilings loader and the lower-bound / fraction formulas."""

from __future__ import annotations

import json

import pytest

from kernelopt.analysis.roofline import (
    Ceilings,
    load_ceilings,
    load_roofline,
    lower_bound_ms,
    roofline_fraction,
    workload_bounds,
)
from kernelopt.operators import load_operator

MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
IDX = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
ATT = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"

# (operator, var axes, bytes, flops, mma_dtype), each number worked out by hand:
CASES = [
    # rmsnorm B=7, H=4096: x 2*7*4096=57344 + w 2*4096=8192 + out 57344 = 122880; 4 flops/elem*28672
    ("rmsnorm_h4096", {"batch_size": 7}, 122_880, 114_688, None),
    # B=14509: 14509*4096 = 59,428,864 elems; bytes 4*that + 8192; flops 4*that
    ("rmsnorm_h4096", {"batch_size": 14509}, 237_723_648, 237_715_456, None),
    # fused add: 3 [B,H] bf16 tensors (x, residual, out) + weight: 6*4096 + 8192; flops 5*4096
    ("fused_add_rmsnorm_h4096", {"batch_size": 1}, 32_768, 20_480, None),
    # B=8804: 8804*4096 = 36,061,184; 6*that + 8192 = 216,375,296; 5*that = 180,305,920
    ("fused_add_rmsnorm_h4096", {"batch_size": 8804}, 216_375_296, 180_305_920, None),
    # gemm M=1: 2*(1*4096 + 4096*4096 + 1*4096) = 33,570,816; 2*1*4096*4096 = 33,554,432
    ("gemm_n4096_k4096", {"M": 1}, 33_570_816, 33_554_432, "bf16"),
    # M=256: 2*(1,048,576 + 16,777,216 + 1,048,576) = 37,748,736; 2*256*16,777,216 = 8,589,934,592
    ("gemm_n4096_k4096", {"M": 256}, 37_748_736, 8_589_934_592, "bf16"),
    # gdn decode B=1: q,k 2048 + v 2048 + a,b 32 + state 524,288 + out 2048 + new_state 524,288
    #   = 1,054,752 per row, + A_log/dt_bias 64 = 1,054,816; flops 8 heads * 7*128*128 = 917,504
    ("gdn_decode_qk4_v8_d128_k_last", {"batch_size": 1}, 1_054_816, 917_504, None),
    # B=64: 64*1,054,752 + 64 = 67,504,192; 64*917,504 = 58,720,256
    ("gdn_decode_qk4_v8_d128_k_last", {"batch_size": 64}, 67_504_192, 58_720_256, None),
    # gdn prefill N=6,S=1: per token q,k 2048 + v 2048 + a,b 32 + out 2048 = 6176 -> 37,056;
    #   per seq state in+out 2*524,288 = 1,048,576; A_log/dt_bias 64; cu_seqlens 2*8 = 16
    #   = 1,085,712; flops 6 tokens * 8 heads * 114,688 = 5,505,024
    ("gdn_prefill_qk4_v8_d128_k_last", {"total_seq_len": 6, "num_seqs": 1, "len_cu_seqlens": 2},
     1_085_712, 5_505_024, "bf16"),
    # N=8192,S=20: 8192*6176 = 50,593,792 + 20*1,048,576 = 20,971,520 + 64 + 21*8 = 168 -> 71,565,544;
    #   flops 8192*917,504 = 7,516,192,768
    ("gdn_prefill_qk4_v8_d128_k_last", {"total_seq_len": 8192, "num_seqs": 20, "len_cu_seqlens": 21},
     71_565_544, 7_516_192_768, "bf16"),
    # moe T=1: 1 expert touched (32*(1-31/32)), 1 pair. Expert: gemm1 4096*7168 = 29,360,128 + scales
    #   32*56*4 = 7168 + gemm2 7168*2048 = 14,680,064 + scales 56*16*4 = 3584 = 44,050,944;
    #   logits 1024 + bias 512 + hidden 7168 + hidden scale 224 + out 14,336 -> 44,074,208;
    #   flops 2*4096*7168 + 2*7168*2048 = 58,720,256 + 29,360,128 = 88,080,384
    (MOE, {"seq_len": 1}, 44_074_208, 88_080_384, "fp8"),
    # T=14107: all 32 experts touched (31/32^14107 ~ 0): 32*44,050,944 = 1,409,630,208; logits
    #   14107*1024 = 14,445,568; bias 512; hidden 14107*7168 = 101,118,976; scale 14107*224 =
    #   3,159,968; out 14107*14336 = 202,237,952 -> 1,730,593,184; flops 14107 * 88,080,384
    (MOE, {"seq_len": 14107}, 1_730_593_184, 1_242_549_977_088, "fp8"),
    # indexer B=1,P=1 (64 tokens <= topk: pass-through, no score needed): block table 1*1*4 = 4 + seq_lens 4
    #   + out 2048*4 = 8192 -> 8,200; no flops
    (IDX, {"batch_size": 1, "max_num_pages": 1, "num_pages": 11923}, 8_200, 0, "fp8"),
    # B=30,P=91: pages 91 + 29*(92/2) = 1425 -> 1425*8452 = 12,044,100; q 30*8192 = 245,760;
    #   weights 30*256 = 7680; seq_lens 120; out 245,760 -> 12,543,420; flops 1425*64*16,512
    (IDX, {"batch_size": 30, "max_num_pages": 91, "num_pages": 11923}, 12_543_420, 1_505_894_400, "fp8"),
    # attention T=1: q_nope 16*512*2 = 16,384 + q_pe 16*64*2 = 2048 + indices 2048*4 = 8192 +
    #   KV 2048*576*2 = 2,359,296 + out 16,384 + lse 64 -> 2,402,368;
    #   flops 2*16*2048*576 + 2*16*2048*512 = 37,748,736 + 33,554,432 = 71,303,168
    (ATT, {"num_tokens": 1, "num_pages": 8462}, 2_402_368, 71_303_168, "bf16"),
    # T=8: 8x both
    (ATT, {"num_tokens": 8, "num_pages": 8462}, 19_218_944, 570_425_344, "bf16"),
]


@pytest.mark.parametrize(("name", "axes", "nbytes", "flops", "mma"), CASES,
                         ids=[f"{c[0][:24]}-{'-'.join(map(str, c[1].values()))}" for c in CASES])
def test_operator_roofline_matches_hand_arithmetic(name, axes, nbytes, flops, mma):
    op = load_operator(name)
    const = {a: s.value for a, s in op.definition.axes.items() if s.type == "const"}
    assert load_roofline(op.path)({**const, **axes}) == {"bytes": nbytes, "flops": flops, "mma_dtype": mma}


def test_every_operator_has_a_roofline_for_every_workload():
    from kernelopt.operators import list_operators
    for name in list_operators():
        op = load_operator(name)
        roof = load_roofline(op.path)
        assert roof is not None, f"{name} has no roofline.py"
        const = {a: s.value for a, s in op.definition.axes.items() if s.type == "const"}
        rows = workload_bounds(roof, const, {w.uuid: w.axes for w in op.workloads}, None)
        # a workload may need no FLOP (the indexer's pass-through rows), never no byte
        assert all(r["bytes"] > 0 and r["flops"] >= 0 for r in rows.values()), name
        assert any(r["flops"] > 0 for r in rows.values()), name


def test_ceilings_by_device_name():
    h200 = load_ceilings("NVIDIA H200")
    # measured on the H200 by benchmarks/measure_ceilings.py (2026-11-29), see benchmarks/results/ceilings_h200.json
    assert h200 is not None and h200.copy_bandwidth_bytes_per_s == pytest.approx(4.330e12, rel=1e-3)
    assert h200.rate("bf16") == pytest.approx(7.847e14, rel=1e-3) and h200.rate("fp8") == pytest.approx(1.382e15, rel=1e-3)
    assert h200.rate(None) == h200.rate("fp32")
    assert "measured" in h200.sources["copy_bandwidth_bytes_per_s"]
    assert "measured" in h200.sources["matmul_flops_per_s.fp8"]
    assert load_ceilings("AMD EPYC 7B13 64-Core Processor") is None
    assert load_ceilings(None) is None


def test_lower_bound_and_fraction_by_hand():
    h200 = load_ceilings("NVIDIA H200")
    # gemm M=256: memory 37,748,736 / 4.330e12 = 8.717e-6 s; compute 8,589,934,592 / 7.8467e14 = 1.09471e-5 s
    assert lower_bound_ms(37_748_736, 8_589_934_592, "bf16", h200) == pytest.approx(0.0109471, rel=1e-5)
    # rmsnorm B=14509: 237,723,648 / 4.3303e12 = 5.4898e-5 s = 0.054898 ms (flops at 67 TF: 3.5e-6 s)
    assert lower_bound_ms(237_723_648, 237_715_456, None, h200) == pytest.approx(0.0548983, rel=1e-5)
    assert roofline_fraction(0.1, 0.055) == pytest.approx(0.55)
    with pytest.raises(ValueError, match="measured_ms"):
        roofline_fraction(0.0, 1.0)


def test_workload_bounds_names_the_limiter():
    op = load_operator("gemm_n4096_k4096")
    roof = load_roofline(op.path)
    rows = workload_bounds(roof, {"N": 4096, "K": 4096}, {"a": {"M": 1}, "b": {"M": 256}}, load_ceilings("H200"))
    assert rows["a"]["limiter"] == "memory" and rows["b"]["limiter"] == "compute"
    assert rows["a"]["bound_ms"] == pytest.approx(33_570_816 / 4.330256e12 * 1e3)


def test_bad_roofline_and_ceilings_files_fail_clearly(tmp_path):
    (tmp_path / "roofline.py").write_text("def roofline(axes):\n    return {'bytes': 1}\n")
    with pytest.raises(ValueError, match="roofline.py: roofline\\(\\) must return"):
        load_roofline(tmp_path)({"x": 1})
    (tmp_path / "bad.json").write_text(json.dumps({"device": "X", "match": ["x"]}))
    with pytest.raises(ValueError, match="bad.json: bad ceilings"):
        load_ceilings("X", tmp_path)
    ok = Ceilings(device="Y", match=["y"], copy_bandwidth_bytes_per_s=1e12, matmul_flops_per_s={"bf16": 1e14})
    with pytest.raises(ValueError, match="no matmul rate"):
        ok.rate("fp8")
