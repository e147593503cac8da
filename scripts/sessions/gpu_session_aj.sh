#!/usr/bin/env bash
# Device call AJ (2026-12-01): the MoE dispatch with the FP8-intermediate seed in its upper bands, swept like a
# contest entry and side by side with the retained dispatch in the same call; the GDN prefill campaign including
# the retained prefill dispatch; more q8 points for the 901 and large bands.
#   0. python3 benchmarks/contest.py (retained = dispatch/bf16m16_q8m16_q8m64_80_901.json, no baselines) on all 19
#      workloads -> profiles_v/contest_scratch_aj (call AI, five workloads: q8 BLOCK_M 16 at seq_len 901 1.537 vs
#      1.926 ms, q8 defaults at 11,948 / 14,107 4.599 / 4.574 vs 4.822 / 4.968 ms).
#   1. `kernelopt evaluate` of the retained dispatch on all 19 (the side-by-side reference for 0).
#   2. GDN prefill: campaign including recurrent_wy_401.json on 7 workloads (call AH's 14-workload sweeps outran
#      the clock).
#   3. q8 points on seq_len 901 / 11,948 / 14,107: 4 stages, BLOCK_N2 256 and 64, BLOCK_M 16 with N 128, and
#      the profile of the new dispatch at 14,107 tokens (GEMM1 vs GEMM2 after the change).
# Usage (carry .whl):  CALL=aj END_BY=<limit - 60> bash scripts/sessions/gpu_session_aj.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-120}
keep_packed "results_${CALL}" "$P" 'benchmarks/results/campaign_*_h200.*' 'benchmarks/results/contest_moe_scratch*'
NEW=operators/$MOE/solutions/dispatch/bf16m16_q8m16_q8m64_80_901.json
Q=operators/$MOE/solutions/seeds/moe_grouped_fp8_q8
W=1a4c6ba1-3cd2-4d7d-b716-84f2d52b69fc,58a34f27-7995-4155-8b46-f60a7225e20e,5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/contest.py --operators $MOE --baselines --solution "$MOE=$NEW" --budget-s 100000 \
    --name moe_scratch_aj --traces "$P/contest_scratch_aj" --resume
  evaluate_once "$P/moe_aj_retained_all.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16_m16n64_m32_m64_80_901.json"
  campaign $PRE prefill_inc 7 "campaign.include=[operators/$PRE/solutions/dispatch/recurrent_wy_401.json]"
  evaluate_once "$P/moe_aj_q8_s4.jsonl" $MOE "$Q@num_stages=4" $W
  evaluate_once "$P/moe_aj_q8_n2_256.jsonl" $MOE "$Q@BLOCK_N2=256" $W
  evaluate_once "$P/moe_aj_q8_m16_n128.jsonl" $MOE "$Q@BLOCK_M=16,num_warps=4" $W
  evaluate_once "$P/moe_aj_q8_n2_64.jsonl" $MOE "$Q@BLOCK_N2=64" $W
  profile_once moe_q8_dispatch $MOE "$NEW" 5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d
) &
finish_session $!
