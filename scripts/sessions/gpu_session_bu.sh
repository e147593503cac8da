#!/usr/bin/env bash
# Device call BU (queued 2026-12-02, after call BT): the full contest sweep of the GDN prefill dispatch
# dispatch/recurrent_wy3f_wy3bc32_2284.json (the retained dispatch with wy3b, bf16 scratch and states, in its long
# band; call BT compares the two on that band side by side). About 6 minutes; resumable (a later call continues
# profiles_v/contest_scratch_bu as it stands). Then, with what is left, wy3b on the middle band (402-2,284 tokens)
# side by side with the retained code there.
# Usage (carry .whl):  CALL=bu END_BY=540 bash scripts/sessions/gpu_session_bu.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bu.md"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $GDN operators/$GDN/solutions/dispatch/recurrent_wy3f_wy3bc32_2284.json prefill_wy3b_bu \
    "$P/contest_scratch_bu"
  # the middle band (402-2,284 tokens: the retained dispatch runs wy3f there) with wy3b, side by side
  MID=$(axis_band $GDN total_seq_len 402 2285)
  evaluate_once "$P/prefill_bu_retained_mid.jsonl" $GDN operators/$GDN/solutions/dispatch/wy3f_seqs8_bv64.json "$MID"
  evaluate_once "$P/prefill_bu_wy3b_mid.jsonl" $GDN operators/$GDN/solutions/seeds/gdn_prefill_chunked_wy3b "$MID"
) &
finish_session $!
