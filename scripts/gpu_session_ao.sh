#!/usr/bin/env bash
# Device call AO (prepared 2026-12-01 for the next session): retained kernels through the platform, part 1.
#   0. GDN prefill: the campaign including the retained dispatch recurrent_wy_401.json (call AK's ran past its clock
#      in the band-profiling step after the baseline sweep: torch + ncu children of ~45 s per workload; profiling
#      now gets at most a quarter of the clock left, kernelopt/campaign_steps.py).
#   1. DSA indexer: the campaign including the retained solution (dsa_indexer_fl since call AN): gated, swept,
#      repeated and promoted through the registry gates if nothing beats it.
# Usage (carry .whl):  CALL=ao END_BY=<limit - 60> bash scripts/gpu_session_ao.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-120}
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
keep_packed "results_${CALL}" "$P" 'benchmarks/results/campaign_*_ao_h200.*'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  campaign $PRE prefill_inc 7 "campaign.include=[operators/$PRE/solutions/dispatch/recurrent_wy_401.json]"
  campaign $IDX indexer_inc 7 "campaign.include=[operators/$IDX/retained/solution.json]"
) &
finish_session $!
