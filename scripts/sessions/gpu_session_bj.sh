#!/usr/bin/env bash
# Device call BJ (queued 2026-12-01): where the DSA sparse attention's ~27 us go.
#   The retained point (dsa_attn_splitk, BK 64, 16 splits, 16 warps, 4 stages, fused combine: one launch) takes
#   27.1 us at 1 token and 30.3 us at 8 (contest traces): nearly flat while the gathered bytes grow 8x, at 0.02-0.15
#   of the roofline; the paper's 217x needs 0.142 on every workload (mean 0.020 ms instead of 0.029).
#   1. Nsight Compute + torch.profiler profiles of the retained point at 1 and 8 tokens (registers, occupancy,
#      DRAM / SM throughput, the one kernel's duration), and at 8 tokens with the combine as its own launch: the
#      split kernel's and the merge's device times apart (the fused merge is one program per token looping over
#      the 16 splits' [16, 512] fp32 partials, 512 KB a token).
#   2. Side by side on all 23 workloads, the retained point first, then one move at a time in the seed's space:
#      32 splits at BK 64 (one key block per program, twice the programs), 64 splits at BK 32 / 8 warps, 8 splits
#      (fewer partials to merge, two more key blocks each), BK 128 (fewer, larger gathers).
# Usage (carry .whl):  CALL=bj END_BY=540 bash scripts/sessions/gpu_session_bj.sh
source "$(dirname "$0")/../gpu_env.sh" session
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
SEED=operators/$ATT/solutions/seeds/dsa_attn_splitk
RET="BK=64,num_warps=16,num_stages=4"
keep_packed "results_${CALL}" "$P"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  profile_once attn_t1 $ATT "$SEED@$RET" c35fdc40-baef-5414-b890-f030d92e900a
  profile_once attn_t8 $ATT "$SEED@$RET" c21d2278-5f8f-5ed5-b951-924b0a463b93
  profile_once attn_t8_launch $ATT "$SEED@$RET,COMBINE=launch" c21d2278-5f8f-5ed5-b951-924b0a463b93
  for move in "" NUM_SPLITS=32 "NUM_SPLITS=64,BK=32,num_warps=8" NUM_SPLITS=8 "BK=128,num_stages=2"; do
    tag=${move//[=,]/}
    evaluate_once "$P/attn_bj_${tag:-retained}.jsonl" $ATT "$SEED@$RET${move:+,$move}"
  done
) &
finish_session $!
