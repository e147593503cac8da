#!/usr/bin/env bash
# Device call DY (2026-12-03), after calls DW / DX: the 1-token MoE workload read 67.6 us with q8sk (SPLIT_K 8) against
# 103-109 for the retained dispatch in call DW, and 108.7 against 88-94 in call DX. Here the two (retained dispatch,
# solutions/dispatch/q8sk8_7_retained.json) alternate three times each over the workloads of 1-7 tokens, to tell
# the change from the spread between evaluations: $P/moe_dy_{ret,sk8}_<i>.jsonl.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dy END_BY=300 bash scripts/sessions/gpu_session_dy.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" "$P/moe_dy_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  uuids=$(axis_band "$MOE" seq_len 1 8)
  for i in 1 2 3; do
    evaluate_once "$P/moe_dy_ret_$i.jsonl" "$MOE" "$MOE_DISPATCH/q8rg_m16n128n2_64s4f_ci_q8s2g3b_q8s2g3_80_4096.json" "$uuids"
    evaluate_once "$P/moe_dy_sk8_$i.jsonl" "$MOE" "$MOE_DISPATCH/q8sk8_7_retained.json" "$uuids"
  done
) &
finish_session $!
