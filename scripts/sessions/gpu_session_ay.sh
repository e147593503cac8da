#!/usr/bin/env bash
# Device call AY (2026-12-01): the nested GDN prefill dispatch solutions/dispatch/recurrent_wy3f_bv64_401.json
# (the recurrent seed up to 401 tokens; above, wy3f for up to 8 sequences and wy3f at BV 64 for 9 or more: call AX
# measured wy3 at BV 64 0.537 ms on the 19 workloads of >= 3,999 tokens, against 0.585 ms for the retained
# dispatch's traces of call AS; slower only on the 2-sequence 5,709-token one).
#   1. Contest sweep of the dispatch alone over all 100 workloads (baselines from the contest traces), resumable
#      into profiles_v/contest_scratch_ay.
#   2. With what is left, side by side: wy3f at BV 32 then at BV 64 on four long workloads of 2 to 57 sequences
#      (where the sequence-count edge should sit).
# Usage (carry .whl):  CALL=ay END_BY=<limit - 60> bash scripts/sessions/gpu_session_ay.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
NEW=operators/$PRE/solutions/dispatch/recurrent_wy3f_bv64_401.json
S=operators/$PRE/solutions/seeds
# 3,028 tokens / 5 sequences, 5,709 / 2, 3,999 / 13, 8,192 / 57
EDGE4=$(python3 - <<'PY'
import json
rows = [json.loads(line)["workload"] for line in open("operators/gdn_prefill_qk4_v8_d128_k_last/workloads.jsonl")]
want = {(3028, 5), (5709, 2), (3999, 13), (8192, 57)}
print(",".join(w["uuid"] for w in rows if (w["axes"]["total_seq_len"], w["axes"]["num_seqs"]) in want))
PY
)
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_prefill_bv64_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/contest.py --operators $PRE --no-baselines --solution "$PRE=$NEW" --budget-s 100000 \
    --name prefill_bv64_${CALL} --traces $P/contest_scratch_ay --resume
  evaluate_once "$P/prefill_ay_wy3f_edge4.jsonl" $PRE "$S/gdn_prefill_chunked_wy3f" "$EDGE4"
  evaluate_once "$P/prefill_ay_wy3f_bv64_edge4.jsonl" $PRE "$S/gdn_prefill_chunked_wy3f@BV=64" "$EDGE4"
) &
finish_session $!
