#!/usr/bin/env bash
# Device call FC (2026-12-04), after call FB: the contest sweep of call FB's pick
# (solutions/dispatch/recurrent_wy3b_s2_seqs16_bv32_401.json: 0.1896 ms against the retained dispatch's 0.2251 / 0.2228
# on eight long workloads, side by side) resumed from its 91 traced workloads, then the GPU tests of the prefill seeds
# it composes in the time left.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=fc END_BY=400 bash scripts/sessions/gpu_session_fc.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_prefill_recurrent_wy3b_s2_seqs16_bv32_401_fb.md" \
  "$P/contest_scratch_fb"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep "$PRE" "$PRE_DISPATCH/recurrent_wy3b_s2_seqs16_bv32_401.json" \
    prefill_recurrent_wy3b_s2_seqs16_bv32_401_fb "$P/contest_scratch_fb"
  step "$(left)" python3 -m pytest -q -p no:cacheprovider -m gpu -rfEs tests/test_seeds.py -k "wy3b or recurrent"
) &
finish_session $!
