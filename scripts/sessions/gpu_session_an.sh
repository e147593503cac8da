#!/usr/bin/env bash
# Device call AN (2026-12-01), the session's last ~6 minutes:
#   0. DSA indexer: resume call AM's contest sweep of dsa_indexer_fl (cut at 13 of 128 workloads: that run also timed
#      the reference and torch.compile, whose traces exist from earlier calls) - the candidate only.
#   1. MoE: the retained dispatch and q8m16f_q8m64s4f_80.json (call AM: 0.9089 ms vs 0.9393 for bf16m16_q8m64s4_80,
#      which call AK put at 0.9985 vs 1.0637 for the retained) on all 19 workloads, one after the other.
#   2. DSA indexer: the 100-trial replay of dsa_indexer_fl on its near-tie workloads.
# Usage (carry .whl):  CALL=an END_BY=<limit - 60> bash scripts/sessions/gpu_session_an.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
keep_packed "results_${CALL}" "$P" 'benchmarks/results/contest_*_scratch_a[mn]*' benchmarks/results/indexer_probe
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/contest.py --operators $IDX --baselines \
    --solution "$IDX=operators/$IDX/solutions/seeds/dsa_indexer_fl" --budget-s 100000 \
    --name indexer_scratch_an --traces "$P/contest_scratch_am" --resume
  evaluate_once "$P/moe_an_retained.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16m16_q8m16_q8m64_80_901.json"
  evaluate_once "$P/moe_an_q8_fast.jsonl" $MOE "operators/$MOE/solutions/dispatch/q8m16f_q8m64s4f_80.json"
  step "$(left)" env PARTS=2 SEED=operators/$IDX/solutions/seeds/dsa_indexer_fl TAG=_fl bash scripts/indexer_probe.sh
) &
finish_session $!
