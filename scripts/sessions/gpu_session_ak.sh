#!/usr/bin/env bash
# Device call AK (prepared 2026-12-01 for the next session: that session's device budget ran out first).
#   0. MoE: call AJ measured the q8 seed at 4 stages (BLOCK_M 64 / N 128) at 1.50 / 4.27 / 4.67 ms on seq_len 901 /
#      11,948 / 14,107, below the retained dispatch's own 901 and large bands in the same call (1.90 / 4.96 / 5.06),
#      but not side by side. Sweep the two-band dispatch bf16m16_q8m64s4_80.json like a contest entry on all 19
#      workloads, then evaluate the retained bf16m16_q8m16_q8m64_80_901.json right after (side by side).
#   1. GDN prefill: the campaign including the retained dispatch recurrent_wy_401.json (calls AH and AJ were cut by
#      this script's own time limit after their sweeps; the controller now admits only evaluations that fit the
#      clock, so it ends with a champion: regular, or provisional when the repeat cannot fit).
# Usage (carry .whl):  CALL=ak END_BY=<limit - 60> bash scripts/sessions/gpu_session_ak.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-150}
keep_packed "results_${CALL}" "$P" 'benchmarks/results/contest_moe_scratch*' 'benchmarks/results/campaign_*_h200.*' mlruns
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/contest.py --operators $MOE --baselines \
    --solution "$MOE=operators/$MOE/solutions/dispatch/bf16m16_q8m64s4_80.json" --budget-s 100000 \
    --name moe_scratch_ak --traces "$P/contest_scratch_ak" --resume
  evaluate_once "$P/moe_ak_retained_all.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16m16_q8m16_q8m64_80_901.json"
  campaign $PRE prefill_inc 7 "campaign.include=[operators/$PRE/solutions/dispatch/recurrent_wy_401.json]"
) &
finish_session $!
