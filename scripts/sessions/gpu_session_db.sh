#!/usr/bin/env bash
# Device call DB (2026-12-03): the DSA indexer seed dsa_indexer_hist (dsa_indexer_bisect's select started from a
# histogram of the keys' top HIST_BITS bits that the scoring programs build with relaxed atomics, and stopped once
# exactly k live keys lie at or above the bits found; call DA put the bisection select alone at 11.8 / 19.6 us of
# 23.8 / 45.4 us at 30 x 33 / 30 x 82 pages, 32 latency-bound rounds).
# GPU tests first (its select on the adversarial rows at 0, 8 and 12 bits, its one launch against the two-launch
# radix path, its seed points); then where the time goes (benchmarks/indexer_parts.py, the new seed at its
# defaults); then, only if the tests passed, on the 59 workloads of 33 pages or more side by side: the retained
# kernel (retained/solution.json: dsa_indexer_bisect), the new seed at HIST_BITS 12 and 0 and at 12 with 8 warps
# and registers capped at 128 (two programs per SM), the retained kernel again last. If one beats the retained
# kernel (benchmarks/trace_agreement.py --faster): its contest sweep (profiles_v/contest_scratch_db) and the 100-trial replay on the near-tie workloads.
# (Rewritten after the call with the helper indexer_side_by_side_sweep of scripts/gpu_env.sh: the same steps.)
# Usage (carry .whl):  CALL=db END_BY=560 bash scripts/sessions/gpu_session_db.sh
source "$(dirname "$0")/../gpu_env.sh" session
S=operators/$IDX/solutions
keep_call_results "benchmarks/results/indexer_parts_*_${CALL}*" "benchmarks/results/indexer_probe"
solution_of() {
  case $1 in
    ret) echo "operators/$IDX/retained/solution.json" ;;
    hist12) echo "$S/seeds/dsa_indexer_hist" ;;
    hist0) echo "$S/seeds/dsa_indexer_hist@HIST_BITS=0" ;;
    hist12w8) echo "$S/seeds/dsa_indexer_hist@num_warps=8,MAXNREG=128" ;;
  esac
}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 200 python3 -m pytest -q -m gpu tests/test_seeds.py tests/test_indexer_select.py tests/test_indexer_one.py \
    -k "hist or one_launch"
  if last_step_passed; then
    step 60 python3 benchmarks/indexer_parts.py --seed dsa_indexer_hist --name "hist12_${CALL}"
    indexer_side_by_side_sweep solution_of "$(axis_band $IDX max_num_pages 33 1000)" ret hist12 hist0 hist12w8
  fi
) &
finish_session $!
