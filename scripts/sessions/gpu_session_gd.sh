#!/usr/bin/env bash
# Device call GD (2026-12-04): after adopting recurrent_wy3hh_1376_s2bv32 (calls GB-GC), the retained-dispatch test on
# the GPU, then the previous retained dispatch (recurrent_wy3b_1376_s2bv32) and the new one side by side on the long
# band's workloads of up to 16 sequences (the C 64 leaf, where the halves prep changes the time), the old one first
# and again last (its drift bounds the ratio).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=gd END_BY=420 bash scripts/sessions/gpu_session_gd.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 120 python3 -m pytest -q tests/test_operator_dispatches.py -k retained_dispatch_passes
  uuids=$(prefill_points 2857:3 3028:5 3271:2 3999:13 4124:15 5709:2)
  side_by_side_again "$PRE" "prefill_${CALL}_" .jsonl "$uuids" "$PRE_DISPATCH/%s.json" recurrent_wy3b_1376_s2bv32 \
    recurrent_wy3hh_1376_s2bv32 >/dev/null
) &
finish_session $!
