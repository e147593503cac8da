#!/usr/bin/env bash
# Device call DA (2026-12-03): the DSA indexer seed dsa_indexer_bisect (dsa_indexer_one_acc with the row's top-2048
# threshold found by bisection on the score keys, 1 or 2 bits per round, instead of four 256-bin tl.histogram
# passes; call BQ put the select alone at 14.6 of 28.7 us at 30 x 33 pages and 26.6 of 54.5 us at 30 x 82).
# GPU tests first (its select on the adversarial rows, its one launch against the two-launch radix path, its seed
# points); then where the time goes (benchmarks/indexer_parts.py: the retained seed's parts, the new seed's at BITS
# 1 and 2); then, only if the tests passed, on the 59 workloads of 33 pages or more side by side: the retained
# dispatch (coop8_b16_acc.json), the seed at BITS 1 and 2, the dispatch coop8_b16_bisect.json (8 selectors up to
# batch 16, the new seed above), the retained dispatch again last. If one beats the retained dispatch
# (benchmarks/trace_agreement.py --faster): its contest sweep (profiles_v/contest_scratch_da) and the 100-trial
# replay on the near-tie workloads.
# (Rewritten after the call with the helper indexer_side_by_side_sweep of scripts/gpu_env.sh: the same steps.)
# Usage (carry .whl):  CALL=da END_BY=560 bash scripts/sessions/gpu_session_da.sh
source "$(dirname "$0")/../gpu_env.sh" session
S=operators/$IDX/solutions
keep_call_results "benchmarks/results/indexer_parts_*_${CALL}*" "benchmarks/results/indexer_probe"
solution_of() {
  case $1 in
    ret) echo "$S/dispatch/coop8_b16_acc.json" ;;
    bisect1) echo "$S/seeds/dsa_indexer_bisect" ;;
    bisect2) echo "$S/seeds/dsa_indexer_bisect@BITS=2" ;;
    cb) echo "$S/dispatch/coop8_b16_bisect.json" ;;
  esac
}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 200 python3 -m pytest -q -m gpu tests/test_seeds.py tests/test_indexer_select.py tests/test_indexer_one.py \
    -k "bisect or one_launch"
  if last_step_passed; then
    step 60 python3 benchmarks/indexer_parts.py --name "acc_${CALL}"
    step 60 python3 benchmarks/indexer_parts.py --seed dsa_indexer_bisect --name "bisect1_${CALL}"
    step 60 python3 benchmarks/indexer_parts.py --seed dsa_indexer_bisect --params BITS=2 --name "bisect2_${CALL}"
    indexer_side_by_side_sweep solution_of "$(axis_band $IDX max_num_pages 33 1000)" ret bisect1 bisect2 cb
  fi
) &
finish_session $!
