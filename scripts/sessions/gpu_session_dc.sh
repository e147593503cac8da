#!/usr/bin/env bash
# Device call DC (2026-12-03): the retained DSA indexer seed dsa_indexer_hist (call DB) at other points of its space,
# on the 59 workloads of 33 pages or more side by side with it: HIST_BITS 10; BN 128 (twice the scoring programs);
# BLOCKS 2 (two tiles a program, the second's loads pipelined); 4 warps at BN 128 (compiled for sm_90 here: 202
# registers at 33-45 pages, two programs per SM, no spills; 255 with spills at 82-91); the dispatch
# hist_w4bn128_45.json (that point up to 45 pages, the defaults above); the retained kernel again last. If one beats
# it (benchmarks/trace_agreement.py --faster): its contest sweep (profiles_v/contest_scratch_dc) and the 100-trial
# replay on the near-tie workloads.
# (Rewritten after the call with the helper indexer_side_by_side_sweep of scripts/gpu_env.sh: the same steps.)
# Usage (carry .whl):  CALL=dc END_BY=500 bash scripts/sessions/gpu_session_dc.sh
source "$(dirname "$0")/../gpu_env.sh" session
S=operators/$IDX/solutions
keep_call_results "benchmarks/results/indexer_probe"
solution_of() {
  case $1 in
    ret) echo "operators/$IDX/retained/solution.json" ;;
    hb10) echo "$S/seeds/dsa_indexer_hist@HIST_BITS=10" ;;
    bn128) echo "$S/seeds/dsa_indexer_hist@BN=128" ;;
    blocks2) echo "$S/seeds/dsa_indexer_hist@BLOCKS=2" ;;
    w4bn128) echo "$S/seeds/dsa_indexer_hist@num_warps=4,BN=128" ;;
    d45) echo "$S/dispatch/hist_w4bn128_45.json" ;;
  esac
}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  indexer_side_by_side_sweep solution_of "$(axis_band $IDX max_num_pages 33 1000)" \
    ret hb10 bn128 blocks2 w4bn128 d45
) &
finish_session $!
