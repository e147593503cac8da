#!/usr/bin/env bash
# Device call JB (2026-12-05): call JA (gpu_session_ja.sh) found the one-launch seed gdn_prefill_onelaunch at its
# defaults 0.32-0.52x of the retained dispatch from 61 to 401 tokens (both retained runs within 1 % there) and ahead
# or level to 832, behind from 1,377 on. The retained dispatch with that band on the seed
# (recurrent_one_832_wy3hh_1376_s2bv32: recurrent to 48 tokens, onelaunch to 832, the retained leaves above, same
# hashes) side by side with the retained dispatch on all 40 workloads of 49-832 tokens (the only ones whose code
# differs), the new one first.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=jb END_BY=560 bash scripts/gpu_session_jb.sh
source "$(dirname "$0")/gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  uuids=$(prefill_band 49 833)
  evaluate_once "$P/prefill_${CALL}_new.jsonl" "$PRE" "$PRE_DISPATCH/recurrent_one_832_wy3hh_1376_s2bv32.json" "$uuids"
  evaluate_once "$P/prefill_${CALL}_retained.jsonl" "$PRE" "$PRE_DISPATCH/recurrent_wy3hh_1376_s2bv32.json" "$uuids"
  evaluate_once "$P/prefill_${CALL}_new_again.jsonl" "$PRE" "$PRE_DISPATCH/recurrent_one_832_wy3hh_1376_s2bv32.json" \
    "$uuids"
) &
finish_session $!
