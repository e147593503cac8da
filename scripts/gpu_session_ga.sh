#!/usr/bin/env bash
# Device call GA (prepared 2026-12-04 without device time, for a later session): does GDN prefill's mid band
# (402-1,376 tokens) gain from the pipelined state walk (num_stages 2) as the long band did? Call FD timed the state
# walk alone on 959 / 4 and 574 / 2 tokens / sequences at 0.0141 / 0.0135 ms against the retained 0.0199 / 0.0190;
# call FC's contest sweep of the all-new dispatch read the mid band 1.1-1.66x slower and call FE's span anatomy level
# (host-heavy calls: sweeps of the same code read 0.67-1.86x apart there). Here the retained dispatch
# (recurrent_wy3b_1376_s2bv32: the old state walk up to 1,376 tokens) and the all-new one
# (recurrent_wy3b_s2_seqs16_bv32_401) side by side on the 11 mid-band workloads through `kernelopt evaluate`, the
# retained one first and again last (its drift bounds the ratio); then the contest sweep of the faster unless it is
# the retained one (name prefill_<pick>_ga; adopt with benchmarks/adopt_retained.py only if it wins there too).
# Not run: call GB went to the prep kernel instead, and both dispatches here now run the old prep (the retained one
# since call GB is recurrent_wy3hh_1376_s2bv32); compose their wy3h counterparts before running it.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ga END_BY=580 bash scripts/gpu_session_ga.sh
source "$(dirname "$0")/gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  uuids=$(prefill_points 461:2 525:1 574:2 661:3 832:4 959:4 973:3 983:2)
  best=$(side_by_side_again "$PRE" "prefill_${CALL}_" .jsonl "$uuids" "$PRE_DISPATCH/%s.json" \
    recurrent_wy3b_1376_s2bv32 recurrent_wy3b_s2_seqs16_bv32_401)
  sweep_unless_kept "$PRE" "$best" recurrent_wy3b_1376_s2bv32 "$PRE_DISPATCH/%s.json" "prefill_${best}_${CALL}" \
    "$P/contest_scratch_${CALL}"
) &
finish_session $!
