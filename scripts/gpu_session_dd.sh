#!/usr/bin/env bash
# Device call DD (2026-12-03): the dispatch hist_hb10_b2_45.json of the retained DSA indexer seed dsa_indexer_hist -
# HIST_BITS 10 up to 45 pages, BLOCKS 2 above, the bands where call DC measured them ahead of the defaults (0.987 /
# 0.994 at 33-36 / 38-45 pages; 0.950 at 82-91) - on the 59 workloads of 33 pages or more side by side with the
# retained kernel, which runs again last. If it beats it (benchmarks/trace_agreement.py --faster): its contest sweep
# (profiles_v/contest_scratch_dd) and the 100-trial replay on the near-tie workloads.
# Usage (carry .whl):  CALL=dd END_BY=420 bash scripts/gpu_session_dd.sh
source "$(dirname "$0")/gpu_env.sh" session
S=operators/$IDX/solutions
keep_call_results "benchmarks/results/indexer_probe"
solution_of() {
  case $1 in
    ret) echo "operators/$IDX/retained/solution.json" ;;
    dd) echo "$S/dispatch/hist_hb10_b2_45.json" ;;
  esac
}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  LONG=$(axis_band $IDX max_num_pages 33 1000)
  for v in ret dd; do evaluate_once "$P/indexer_${CALL}_$v.jsonl" $IDX "$(solution_of $v)" "$LONG"; done
  evaluate_once "$P/indexer_${CALL}_ret_again.jsonl" $IDX "$(solution_of ret)" "$LONG"
  BEST=$(fastest_in_turn $IDX "indexer_${CALL}_" .jsonl ret dd)
  echo "=== the fastest of indexer_${CALL}_*: $BEST" >> "$L"
  if [ "$BEST" != ret ]; then
    contest_sweep $IDX "$(solution_of "$BEST")" "indexer_${BEST}_${CALL}" "$P/contest_scratch_${CALL}"
    step "$(left)" env PARTS=2 SEED="$(solution_of "$BEST")" TAG="_${BEST}_${CALL}" bash scripts/indexer_probe.sh
  fi
) &
finish_session $!
