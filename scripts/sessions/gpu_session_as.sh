#!/usr/bin/env bash
# Device call AS (2026-12-01): the new GDN prefill dispatch (token-recurrent seed up to 401 tokens, the three-kernel
# seed gdn_prefill_chunked_wy3 above: solutions/dispatch/recurrent_wy3_401.json) over all 100 workloads, contest
# sweep of the kernel alone (baselines from the contest traces), resumable into profiles_v/contest_scratch_as; then,
# with what is left, a campaign that includes it (gated, swept and promoted through the registry unless beaten).
# Usage (carry .whl):  CALL=as END_BY=<limit - 60> bash scripts/sessions/gpu_session_as.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
NEW=operators/$PRE/solutions/dispatch/recurrent_wy3_401.json
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_prefill_wy3_*" "benchmarks/results/campaign_*_${CALL}_h200.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/contest.py --operators $PRE --no-baselines --solution "$PRE=$NEW" --budget-s 100000 \
    --name prefill_wy3_${CALL} --traces $P/contest_scratch_as --resume
  CAMP_S=${CAMP_S:-100} campaign $PRE gdn_prefill_wy3 7 "campaign.include=[$NEW]"
) &
finish_session $!
