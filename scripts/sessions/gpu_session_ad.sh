#!/usr/bin/env bash
# Device call AD (2026-12-01, after call AC). One GPU, one queue in turn; every step resumes or is skipped once its
# output exists; unpack the archive with python scripts/unpack_results.py <files_at>/results_<call>.tgz.
#   1. Side by side, `kernelopt evaluate` on all 19 MoE workloads: the retained point (seed@BLOCK_M=32,
#      INTER_DTYPE=bf16) again -> profiles_v/moe_m32_bf16_ad.jsonl, then the dispatch
#      operators/<moe>/solutions/dispatch/bf16_m16n64_m32_80.json (BLOCK_M=16, BLOCK_N=64 up to 80 tokens: in call
#      AC's bf16 sub-space table it read 0.30-0.43 ms vs 0.33-0.53 for BLOCK_M=32 on seq_len 16-58) ->
#      profiles_v/moe_dispatch_bf16_80.jsonl.
#   2. The retained point once more through benchmarks/contest.py (retained only, scratch traces folder
#      $OUT/contest_scratch): call AC's contest sweep read it 5-40 % slower per workload (1.203 ms mean) than call
#      AB's `kernelopt evaluate` (1.0025 ms); is it the contest's one-workload-per-request path?
#   3. The rest of the bf16 MoE sub-space (BLOCK_M 64, 128), then the fp32 sub-space's BLOCK_M 64/128 retries.
# Usage (carry .whl):  CALL=ad END_BY=<limit - 60> bash scripts/sessions/gpu_session_ad.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" "$P" 'benchmarks/results/controller_space_moe_*h200.json' 'benchmarks/results/contest_moe_scratch*'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/moe_m32_bf16_ad.jsonl" $MOE "operators/$MOE/solutions/seeds/moe_grouped_fp8@BLOCK_M=32,INTER_DTYPE=bf16"
  evaluate_once "$P/moe_dispatch_bf16_80.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16_m16n64_m32_80.json"
  step "$(left)" python3 benchmarks/contest.py --operators $MOE --baselines \
    --solution "$MOE=operators/$MOE/solutions/seeds/moe_grouped_fp8@BLOCK_M=32,INTER_DTYPE=bf16" --budget-s 100000 \
    --name moe_scratch_ad --traces "$OUT/contest_scratch"
  measure_space $MOE benchmarks/results/controller_space_moe_bf16_h200.json \
    --fix COMBINE=gather INTER_DTYPE=bf16 BLOCK_N2=128 num_stages=3 ROUTE=triton
  measure_space $MOE benchmarks/results/controller_space_moe_h200.json \
    --fix COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=triton --retry-failed
) &
finish_session $!
