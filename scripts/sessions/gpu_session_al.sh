#!/usr/bin/env bash
# Device call AL (prepared 2026-12-01 for the next session): cheaper launches for multi-launch calls.
# `benchmarks/launch_overhead.py` (call AH): every launch after a call's first costs the H200 host 10-34 us of
# official time; Triton's JIT dispatch 20 us at 12 parameters, the compiled kernel's launcher 12 us.
# operators/_solution_lib/fastlaunch.py caches the compiled kernel per specialisation and launches through it.
#   0. GPU tests: fastlaunch against kernel[grid](...), the q8 MoE pipeline with LAUNCH=fast (two calls each), the
#      GPU points of dsa_indexer_fl and moe_grouped_fp8_q8 through the harness.
#   1. DSA indexer: dsa_indexer_fl (same kernels as the retained seed; host steps before the first launch, fast
#      launches) then the retained dsa_indexer_scores, all 128 workloads each, side by side.
#   2. MoE decode rows (seq_len 1, 7, 16, 32, 59, 80): q8 at BLOCK_M 16 / N 64 / 4 warps with LAUNCH=fast, then jit,
#      then the retained dispatch.
#   3. MoE large rows (901 / 11,948 / 14,107): GEMM1 holds 254 registers at BLOCK_N 128 (call AJ's Nsight Compute,
#      12.5 % occupancy): q8 with BLOCK_N 64 at 8 and at 4 warps (half the accumulator registers per program).
# Usage (carry .whl):  CALL=al END_BY=<limit - 60> bash scripts/sessions/gpu_session_al.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" "$P"
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
Q=operators/$MOE/solutions/seeds/moe_grouped_fp8_q8
W=e05c6c03-5603-4a1c-b34c-dcce0ecaeea4,b8f4f012-a32e-4356-b4e1-7665b3d598af,a7c2bcfd-a2f4-479e-8d32-200115df89cf
W=$W,6230e838-67ca-41dd-a9d6-6f36b7676c6b,eedc63b2-c03b-4cf2-8d16-1f46566e3af7,8f1ff9f1-6747-41d1-a1d8-2868cdacf893
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_fastlaunch.py tests/test_moe_q8.py tests/test_seeds.py \
    -k "fastlaunch or fp8_intermediate or dsa_indexer_fl or moe_grouped_fp8_q8"
  evaluate_once "$P/indexer_al_fl.jsonl" $IDX "operators/$IDX/solutions/seeds/dsa_indexer_fl"
  evaluate_once "$P/indexer_al_scores.jsonl" $IDX "operators/$IDX/solutions/seeds/dsa_indexer_scores"
  evaluate_once "$P/moe_al_q8_m16_fast.jsonl" $MOE "$Q@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast" $W
  evaluate_once "$P/moe_al_q8_m16_jit.jsonl" $MOE "$Q@BLOCK_M=16,BLOCK_N=64,num_warps=4" $W
  evaluate_once "$P/moe_al_retained.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16m16_q8m16_q8m64_80_901.json" $W
  WL=1a4c6ba1-3cd2-4d7d-b716-84f2d52b69fc,58a34f27-7995-4155-8b46-f60a7225e20e,5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d
  evaluate_once "$P/moe_al_q8_default_large.jsonl" $MOE "$Q" $WL
  evaluate_once "$P/moe_al_q8_n64_large.jsonl" $MOE "$Q@BLOCK_N=64" $WL
  evaluate_once "$P/moe_al_q8_n64_w4_large.jsonl" $MOE "$Q@BLOCK_N=64,num_warps=4" $WL
) &
finish_session $!
