#!/usr/bin/env bash
# Device call BF (2026-12-01): the wy3p GDN prefill seed on the long band, and a dispatch with it.
#   1. Side by side on call BE's six long workloads (2 to 57 sequences): wy3p at C 32 (prep 4 warps, state walk
#      BV 64 / 4 warps, output BV_O 128 / 4 warps: call BE's kernel sweeps put these three at ~0.38 ms at 35 and 57
#      sequences, against ~0.49 for C 64) and wy3p at C 64 with the state walk at BV 64 / 4 warps.
#   2. Order (this session has 694 s of device time, one call): first wy3p's defaults (call BE: 0.399 ms mean on the
#      six, the retained dispatch 0.458 ms side by side) as the long band of a dispatch: the recurrent seed up to
#      401 tokens, the retained inner dispatch (dispatch/wy3f_seqs8_bv64.json) up to 2,284, wy3p above
#      (dispatch/recurrent_wy3f_wy3p_2284.json, composed here), and its contest sweep over all 100 workloads,
#      resumable into profiles_v/contest_scratch_bf; then, with the time left, the two points of step 1.
# Usage (carry .whl):  CALL=bf END_BY=570 bash scripts/sessions/gpu_session_bf.sh
source "$(dirname "$0")/../gpu_env.sh" session
D=$PRE_DISPATCH
W=$PRE_SEEDS/gdn_prefill_chunked_wy3p
EDGE6=$(prefill_points 3028:5 5709:2 3999:13 8192:20 8192:35 8192:57)
C32="C=32,num_warps=4,BV=64,num_warps_h=4,BV_O=128,num_warps_o=4"
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_prefill_wy3p_*" "$D/recurrent_wy3f_wy3p_2284.json"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  python3 -m kernelopt.cli.main dispatch $PRE --axis total_seq_len --band $PRE_SEEDS/gdn_prefill_recurrent --upper 401 \
    --band $D/wy3f_seqs8_bv64.json --upper 2284 --band "$W" -o $D/recurrent_wy3f_wy3p_2284.json >>"$L" 2>&1
  step "$(left)" python3 benchmarks/contest.py --operators $PRE --no-baselines \
    --solution "$PRE=$D/recurrent_wy3f_wy3p_2284.json" --budget-s 100000 --name prefill_wy3p_${CALL} \
    --traces $P/contest_scratch_bf --resume
  evaluate_once "$P/prefill_bf_wy3p_c32_edge6.jsonl" $PRE "$W@$C32" "$EDGE6"
  evaluate_once "$P/prefill_bf_wy3p_bv64_h4_edge6.jsonl" $PRE "$W@BV=64" "$EDGE6"
) &
finish_session $!
