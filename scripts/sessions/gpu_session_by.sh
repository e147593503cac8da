#!/usr/bin/env bash
# Device call BY (queued 2026-12-02, after calls BW and BX), in this order:
#   1. MoE small band (16 workloads of 1-80 tokens): the retained dispatch against three points of its small-band
#      seed q8rt (BLOCK_M 16 / BLOCK_N 64 / 4 warps / 4 stages / fast launches) with another GEMM2 tile width or one
#      more stage. Call BT's span anatomy at 32 / 59 tokens: GEMM2 129 / 159 us streams ~0.3 GB of W2 at ~2.3 TB/s
#      where GEMM1 streams its W1 at ~3.4 TB/s; ~21 tiles x 56 N blocks of 128 columns is ~1,200 programs, two or
#      three waves at 4-6 resident per SM (not measured), the last partly empty. BLOCK_N2 64 halves each program's
#      share of W2 (twice the programs), 256 doubles it.
#   2. GDN prefill middle band (402-2,284 tokens): wy3b at C 32 (call BX runs wy3b at its defaults there).
#   3. With what is left: the 100-trial replay of the indexer dispatch acc_blocks2_63.json.
# Usage (carry .whl):  CALL=by END_BY=560 bash scripts/sessions/gpu_session_by.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/indexer_probe"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  SMALL=$(axis_band $MOE seq_len 1 81)
  RT="operators/$MOE/solutions/seeds/moe_grouped_fp8_q8rt@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4"
  evaluate_once "$P/moe_by_retained_small.jsonl" $MOE operators/$MOE/solutions/dispatch/q8rt_m16s4f_m64s4f_80.json \
    "$SMALL"
  evaluate_once "$P/moe_by_n2_64_small.jsonl" $MOE "$RT,BLOCK_N2=64" "$SMALL"
  evaluate_once "$P/moe_by_n2_256_small.jsonl" $MOE "$RT,BLOCK_N2=256" "$SMALL"
  evaluate_once "$P/moe_by_s5_small.jsonl" $MOE "${RT/num_stages=4/num_stages=5}" "$SMALL"
  MID=$(axis_band $GDN total_seq_len 402 2285)
  evaluate_once "$P/prefill_by_wy3bc32_mid.jsonl" $GDN \
    "operators/$GDN/solutions/seeds/gdn_prefill_chunked_wy3b@C=32,num_warps=4,BV=64,num_warps_h=4,BV_O=128,num_warps_o=4" \
    "$MID"
  step 150 env PARTS=2 SEED=operators/$IDX/solutions/dispatch/acc_blocks2_63.json TAG=_acc_blocks2 \
    bash scripts/indexer_probe.sh
) &
finish_session $!
