#!/usr/bin/env bash
# Device call FD (2026-12-04), after call FC: the contest sweep of recurrent_wy3b_s2_seqs16_bv32_401 (100/100 PASSED,
# 0.0866 ms mean against the retained dispatch's 0.0902 of 2026-12-02) was faster on every workload above 1,376 tokens
# but one and slower on 10 of the 11 at 461-983 tokens (up to 1.66x on 959 tokens / 4 sequences). First the three
# kernels alone on two of those (574 / 2 and 959 / 4 sequences) at the old and new launch options, to see which
# kernel loses; then the contest sweep of the dispatch recurrent_wy3b_1376_s2bv32 (the recurrent seed up to 401 tokens,
# the retained wy3b dispatch up to 1,376, the num_stages-2 one above).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=fd END_BY=560 bash scripts/sessions/gpu_session_fd.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/gdn_prefill_kernel_sweep_*_${CALL}_*" \
  "benchmarks/results/contest_prefill_recurrent_wy3b_1376_s2bv32_${CALL}.md"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  for w in c7a9ecec e7fb8edf; do
    step 60 python3 benchmarks/gdn_prefill_kernel_sweep.py --workload "$w" --scratch bf16 --name "${CALL}_$w" \
      --configs h,64,64,4,1,- h,64,64,4,2,- h,64,32,4,1,- h,64,32,4,2,- o,64,64,4,1,- o,64,64,4,2,- prep,64,-,8,1,- \
      prep,64,-,8,2,-
  done
  contest_sweep "$PRE" "$PRE_DISPATCH/recurrent_wy3b_1376_s2bv32.json" "prefill_recurrent_wy3b_1376_s2bv32_${CALL}" \
    "$P/contest_scratch_${CALL}"
) &
finish_session $!
