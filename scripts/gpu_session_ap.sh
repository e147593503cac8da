#!/usr/bin/env bash
# Device call AP (prepared 2026-12-01 for the next session): retained kernels through the platform, part 2.
#   0. DSA sparse attention: the campaign including the retained solution (dsa_attn_splitk, COMBINE=fused).
#   1. MoE: the campaign including the retained dispatch q8m16f_q8m64s4f_80.json (since call AN).
# Usage (carry .whl):  CALL=ap END_BY=<limit - 60> bash scripts/gpu_session_ap.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-120}
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
keep_packed "results_${CALL}" "$P" 'benchmarks/results/campaign_*_ap_h200.*'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  campaign $ATT attention_inc 7 "campaign.include=[operators/$ATT/retained/solution.json]"
  campaign $MOE moe_inc2 7 "campaign.include=[operators/$MOE/retained/solution.json]"
) &
finish_session $!
