#!/usr/bin/env bash
# Device call BB (2026-12-01): the DSA attention campaign champion of call AP (registry version 2: the split-K seed at
# BK 64 / 16 warps / 4 stages, 0.02908 ms vs the retained point's 0.03146 ms on the campaign's 7 workloads) over all
# 23 workloads: contest sweep (baselines from the contest traces), then the retained kernel on the same workloads,
# side by side.
# Usage (carry .whl):  CALL=bb END_BY=<limit - 60> bash scripts/sessions/gpu_session_bb.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
CHAMP=$P/dsa_attention_ret_campaign_champion.json
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_attention_champ_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(( $(left) * 2 / 3 ))" python3 benchmarks/contest.py --operators $ATT --no-baselines --solution "$ATT=$CHAMP" \
    --budget-s 100000 --name attention_champ_${CALL} --traces $P/contest_scratch_bb --resume
  evaluate_once "$P/attention_bb_retained.jsonl" $ATT operators/$ATT/retained/solution.json
) &
finish_session $!
