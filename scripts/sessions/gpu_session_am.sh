#!/usr/bin/env bash
# Device call AM (2026-12-01), after calls AK / AL:
#   0. MoE: call AL measured q8 at BLOCK_M 16 / N 64 / 4 warps with LAUNCH=fast at 0.332 ms on six decode rows (1-80
#      tokens) vs 0.393 for the retained dispatch's bf16 band; call AK the two-band bf16m16_q8m64s4_80.json at 0.9985 ms
#      vs 1.0637 for the retained on all 19. Contest sweep of q8m16f_q8m64s4f_80.json (q8 + fast launches in both
#      bands), then kernelopt evaluate of bf16m16_q8m64s4_80.json right after (side by side).
#   1. DSA indexer: call AL measured dsa_indexer_fl at 0.0243 ms vs the retained dsa_indexer_scores 0.0267 on all 128
#      workloads; its contest sweep (the retained traces if adopted).
#   2. GDN prefill: the campaign including recurrent_wy_401.json (call AK: band profiling after the sweep, torch +
#      ncu children of ~45 s per workload, ran past the clock; it now takes at most a quarter of what is left).
#   3. DSA indexer: the 100-trial replay of dsa_indexer_fl on its near-tie workloads; the retained MoE dispatch.
# Usage (carry .whl):  CALL=am END_BY=<limit - 60> bash scripts/sessions/gpu_session_am.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-150}
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
keep_packed "results_${CALL}" "$P" 'benchmarks/results/contest_*_scratch_am*' 'benchmarks/results/campaign_*_am_h200.*' \
  benchmarks/results/indexer_probe
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/contest.py --operators $MOE --baselines \
    --solution "$MOE=operators/$MOE/solutions/dispatch/q8m16f_q8m64s4f_80.json" --budget-s 100000 \
    --name moe_scratch_am --traces "$P/contest_scratch_am" --resume
  evaluate_once "$P/moe_am_two_band_s4.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16m16_q8m64s4_80.json"
  step "$(left)" python3 benchmarks/contest.py --operators $IDX \
    --solution "$IDX=operators/$IDX/solutions/seeds/dsa_indexer_fl" --budget-s 100000 \
    --name indexer_scratch_am --traces "$P/contest_scratch_am" --resume
  campaign $PRE prefill_inc 7 "campaign.include=[operators/$PRE/solutions/dispatch/recurrent_wy_401.json]"
  step "$(left)" env PARTS=2 SEED=operators/$IDX/solutions/seeds/dsa_indexer_fl TAG=_fl bash scripts/indexer_probe.sh
  evaluate_once "$P/moe_am_retained.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16m16_q8m16_q8m64_80_901.json"
) &
finish_session $!
