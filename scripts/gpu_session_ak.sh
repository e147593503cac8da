#!/usr/bin/env bash
# Device call AK (prepared 2026-12-01 for the next session: the device budget ran out before it could start). Call AJ
# measured the q8 seed at 4 stages
# (BLOCK_M 64 / N 128) at 1.50 / 4.27 / 4.67 ms on seq_len 901 / 11,948 / 14,107, below the new dispatch's own
# 901 and large bands in the same call (1.90 / 4.96 / 5.06). Sweep the two-band dispatch bf16m16_q8m64s4_80.json
# like a contest entry on all 19 workloads, then evaluate bf16m16_q8m16_q8m64_80_901.json right after (side by side).
# Usage (carry .whl):  CALL=ak END_BY=<limit - 50> bash scripts/gpu_session_ak.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" "$P" 'benchmarks/results/contest_moe_scratch*'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/contest.py --operators $MOE --baselines \
    --solution "$MOE=operators/$MOE/solutions/dispatch/bf16m16_q8m64s4_80.json" --budget-s 100000 \
    --name moe_scratch_ak --traces "$P/contest_scratch_ak" --resume
  evaluate_once "$P/moe_ak_q8_dispatch_all.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16m16_q8m16_q8m64_80_901.json"
) &
finish_session $!
