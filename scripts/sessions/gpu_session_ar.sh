#!/usr/bin/env bash
# Device call AR (2026-12-01): where the three-kernel prefill seed starts to beat the token-recurrent seed.
# Call AQ: gdn_prefill_chunked_wy3 beat the retained band's WY seed on all 27 workloads of >= 461 tokens timed side
# by side (1.42x by the ratio of mean latencies). Here wy3 then the recurrent seed (the retained dispatch's short band)
# side by side on the workloads of 64 to 460 tokens, for the new dispatch edge; then the rest of call AQ's WY sweep.
# Usage (carry .whl):  CALL=ar END_BY=<limit - 60> bash scripts/sessions/gpu_session_ar.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
S=operators/$PRE/solutions/seeds
MID=$(prefill_band 64 461)
LONG=$(prefill_band 461 1000000)
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/prefill_ar_wy3_mid.jsonl" $PRE "$S/gdn_prefill_chunked_wy3" "$MID"
  evaluate_once "$P/prefill_ar_recurrent_mid.jsonl" $PRE "$S/gdn_prefill_recurrent" "$MID"
  evaluate_once "$P/prefill_aq_wy.jsonl" $PRE "$S/gdn_prefill_chunked_wy" "$LONG"
) &
finish_session $!
