#!/usr/bin/env bash
# Device call AI (2026-12-01): the FP8-intermediate MoE seed moe_grouped_fp8_q8 against the retained dispatch, side
# by side in one call, then the GDN decode campaign that includes the retained decode dispatch.
#   0. GPU check of the seed at small sizes (tests/test_moe_q8.py -m gpu).
#   1. `kernelopt evaluate` on five workloads (seq_len 1, 59, 901, 11,948, 14,107) of the retained three-band
#      dispatch and of q8 points: its defaults (BLOCK_M 64 / N 128 / N2 128 / 8 warps / 3 stages), taller row
#      tiles (BLOCK_M 128, with N2 256 / 2 stages too), a narrower GEMM1 tile (N 64, 4 stages), and the small-T
#      shapes of the dispatch's first two bands (BLOCK_M 16 and 32, N 64, 4 warps) -> profiles_v/moe_ai_*.jsonl.
#      Call AH's profile: GEMM2 at 212 TFLOP/s vs GEMM1's 430 on the 14,107-token row (bf16 dot on a bf16
#      intermediate); q8 runs GEMM2 on FP8 dots.
#   2. GDN decode: campaign including the retained dispatch bv8_w8_w1_8.json (decode_inc, what call AH had no
#      clock left for).
# Usage (carry .whl):  CALL=ai END_BY=<limit - 60> bash scripts/sessions/gpu_session_ai.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-120}
keep_packed "results_${CALL}" "$P" 'benchmarks/results/campaign_*_h200.*' mlruns
W=e05c6c03-5603-4a1c-b34c-dcce0ecaeea4,eedc63b2-c03b-4cf2-8d16-1f46566e3af7,1a4c6ba1-3cd2-4d7d-b716-84f2d52b69fc
W=$W,58a34f27-7995-4155-8b46-f60a7225e20e,5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d
Q=operators/$MOE/solutions/seeds/moe_grouped_fp8_q8
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 120 python3 -m pytest -q -m gpu tests/test_moe_q8.py
  evaluate_once "$P/moe_ai_retained.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16_m16n64_m32_m64_80_901.json" $W
  evaluate_once "$P/moe_ai_q8_default.jsonl" $MOE "$Q" $W
  evaluate_once "$P/moe_ai_q8_m128.jsonl" $MOE "$Q@BLOCK_M=128" $W
  evaluate_once "$P/moe_ai_q8_m128_n2_256.jsonl" $MOE "$Q@BLOCK_M=128,BLOCK_N2=256,num_stages=2" $W
  evaluate_once "$P/moe_ai_q8_m16.jsonl" $MOE "$Q@BLOCK_M=16,BLOCK_N=64,num_warps=4" $W
  evaluate_once "$P/moe_ai_q8_m32.jsonl" $MOE "$Q@BLOCK_M=32,BLOCK_N=64,num_warps=4" $W
  evaluate_once "$P/moe_ai_q8_n64_s4.jsonl" $MOE "$Q@BLOCK_N=64,num_stages=4" $W
  campaign $DEC decode_inc 7 "campaign.include=[operators/$DEC/solutions/dispatch/bv8_w8_w1_8.json]"
) &
finish_session $!
