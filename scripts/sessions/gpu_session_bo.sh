#!/usr/bin/env bash
# Device call BO (2026-12-02, the session's last ~4 minutes of device time, after call BN): one move each for the two
# seeds call BN measured best. dsa_indexer_one_acc at ACC 64 (fp32 promotion every 2 WGMMAs, not every one) on the 59
# workloads of 33 pages or more; dsa_attn_bf16 at 32 and 8 key splits (its default is the split-K seed's 16).
# Usage (carry .whl):  CALL=bo END_BY=150 bash scripts/sessions/gpu_session_bo.sh
source "$(dirname "$0")/../gpu_env.sh" session
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
keep_packed "results_${CALL}" "$P"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/indexer_bo_acc64.jsonl" $IDX "operators/$IDX/solutions/seeds/dsa_indexer_one_acc@ACC=64" \
    "$(axis_band $IDX max_num_pages 33 1000)"
  for n in 32 8; do
    evaluate_once "$P/attn_bo_bf16_s$n.jsonl" $ATT "operators/$ATT/solutions/seeds/dsa_attn_bf16@NUM_SPLITS=$n"
  done
) &
finish_session $!
