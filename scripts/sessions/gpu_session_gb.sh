#!/usr/bin/env bash
# Device call GB (2026-12-04): GDN prefill with the prep kernel's chunk inverse by halves (seed
# gdn_prefill_chunked_wy3h). Call FA timed wy3b's prep at 0.1675 ms on 8,192 tokens at C 64 (0.0548 at C 32), a third
# of the C 64 leaf's time; the halves take two [C/2, C/2] squaring chains and two dots for the off-diagonal block.
# 1. the prep kernels alone (benchmarks/gdn_prefill_kernel_sweep.py, prep = wy3b's, prep2 = the halves; diff against
#    the full prep of the same C) on workload 546aba8e's split (8,192 tokens / 20 sequences) and on 959 tokens / 4;
# 2. the new seed's GPU points (tests/test_seeds.py -k wy3h), then, only if they pass, side by side on 17 workloads of
#    461-8,192 tokens: the retained dispatch (recurrent_wy3b_1376_s2bv32), the same with the halves prep in its C 64
#    leaves (recurrent_wy3h_1376_s2bv32) and in every leaf (recurrent_wy3hh_1376_s2bv32), the retained one again last;
# 3. the contest sweep of the fastest unless it is the retained one (resumable; name prefill_<pick>_gb).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=gb END_BY=575 bash scripts/sessions/gpu_session_gb.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/gdn_prefill_kernel_sweep_h200_${CALL}_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  preps="prep,64,-,8,1,- prep2,64,-,4,1,- prep2,64,-,8,1,- prep2,64,-,4,2,- prep,32,-,4,1,- prep2,32,-,4,1,-
    prep2,32,-,2,1,- prep2,32,-,8,1,-"
  # shellcheck disable=SC2086  # one word per configuration
  step 100 python3 benchmarks/gdn_prefill_kernel_sweep.py --workload 546aba8e --scratch bf16 --name "${CALL}_546aba8e" \
    --configs $preps
  # shellcheck disable=SC2086
  step 60 python3 benchmarks/gdn_prefill_kernel_sweep.py --lengths 959:4 --scratch bf16 --name "${CALL}_959_4" \
    --configs $preps
  uuids=$(prefill_points 461:2 574:2 661:3 832:4 959:4 983:2 1377:1 2284:3 3271:2 3999:13 4124:15 5709:2 \
    8192:20 8192:57)
  best=$(side_by_side_if 150 "python3 -m pytest -q -m gpu tests/test_seeds.py -k wy3h" "$PRE" "prefill_${CALL}_" \
    .jsonl "$uuids" "$PRE_DISPATCH/%s.json" recurrent_wy3b_1376_s2bv32 recurrent_wy3h_1376_s2bv32 \
    recurrent_wy3hh_1376_s2bv32)
  sweep_unless_kept "$PRE" "$best" recurrent_wy3b_1376_s2bv32 "$PRE_DISPATCH/%s.json" "prefill_${best}_${CALL}" \
    "$P/contest_scratch_${CALL}"
) &
finish_session $!
