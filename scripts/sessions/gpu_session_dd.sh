#!/usr/bin/env bash
# Device call DD (2026-12-03): the dispatch hist_hb10_b2_45.json of the retained DSA indexer seed dsa_indexer_hist -
# HIST_BITS 10 up to 45 pages, BLOCKS 2 above, the bands where call DC measured them ahead of the defaults (0.987 /
# 0.994 at 33-36 / 38-45 pages; 0.950 at 82-91) - on the 59 workloads of 33 pages or more side by side with the
# retained kernel, which runs again last. If it beats it (benchmarks/trace_agreement.py --faster): its contest sweep
# (profiles_v/contest_scratch_dd) and the 100-trial replay on the near-tie workloads.
# (Rewritten after the call with the helper indexer_side_by_side_sweep of scripts/gpu_env.sh: the same steps.)
# Usage (carry .whl):  CALL=dd END_BY=420 bash scripts/sessions/gpu_session_dd.sh
source "$(dirname "$0")/../gpu_env.sh" session
S=operators/$IDX/solutions
keep_call_results "benchmarks/results/indexer_probe"
solution_of() {
  case $1 in
    ret) echo "operators/$IDX/retained/solution.json" ;;
    dd) echo "$S/dispatch/hist_hb10_b2_45.json" ;;
  esac
}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  indexer_side_by_side_sweep solution_of "$(axis_band $IDX max_num_pages 33 1000)" ret dd
) &
finish_session $!
