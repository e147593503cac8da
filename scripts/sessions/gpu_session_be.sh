#!/usr/bin/env bash
# Device call BE (2026-12-01): per-kernel launch options for the long GDN prefill band.
#   1. benchmarks/gdn_prefill_kernel_sweep.py at 8,192 tokens with 35 and 57 sequences (the contest's long
#      workloads have 20-57): C 16 / 32 / 64 for all three kernels (call BD at 20 sequences: prep 0.204 ms at C 64
#      / 8 warps, 0.077 ms at C 32 / 4 warps capped at 128 registers; the state walk and the output kernel 30-35 %
#      faster at 4 warps than at 8; C 32 not timed for those two).
#   2. Side by side on six long workloads (2 to 57 sequences): the new seed gdn_prefill_chunked_wy3p (wy3v with each
#      kernel's own warps) at its defaults (C 64, state walk BV 32 / 4 warps, output BV_O 64 / 4 warps) and at
#      BV 64 / 8 walk warps, then the retained dispatch.
#   3. What is left: the retained dispatch on the rest of the long band (resumed from call BD) and the contest
#      sweep of dispatch/recurrent_wy3v_bv64_401.json (95/100 in call BD).
# Usage (carry .whl):  CALL=be END_BY=540 bash scripts/sessions/gpu_session_be.sh
source "$(dirname "$0")/../gpu_env.sh" session
D=$PRE_DISPATCH
S=$PRE_SEEDS
LONG=$(prefill_band 2857 1000000)
EDGE6=$(prefill_points 3028:5 5709:2 3999:13 8192:20 8192:35 8192:57)
CONFIGS="prep,64,-,8,1,- prep,64,-,8,2,- prep,32,-,4,1,- prep,32,-,4,1,128 prep,32,-,4,2,128 prep,32,-,2,1,-
  prep,16,-,2,1,- prep,16,-,4,1,-
  h,64,32,4,1,- h,64,64,4,1,- h,64,64,8,1,- h,64,64,8,2,- h,64,32,4,2,- h,64,128,8,2,- h,32,32,4,1,- h,32,64,4,1,-
  h,32,64,8,1,- h,32,128,8,1,- h,32,32,2,1,- h,16,64,4,1,- h,16,128,4,1,-
  o,64,64,4,1,- o,64,128,4,1,- o,64,32,4,1,- o,64,64,4,2,- o,64,128,8,1,- o,32,64,4,1,- o,32,128,4,1,- o,32,64,2,1,-
  o,32,128,8,1,- o,16,128,4,1,- o,16,64,2,1,-"
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_prefill_wy3v_*" \
  "benchmarks/results/gdn_prefill_kernel_sweep_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  # shellcheck disable=SC2086  # one config per word
  step 90 python3 benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:35 --name s35 --configs $CONFIGS
  # shellcheck disable=SC2086
  step 90 python3 benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:57 --name s57 --configs $CONFIGS
  evaluate_once "$P/prefill_be_wy3p_edge6.jsonl" $PRE "$S/gdn_prefill_chunked_wy3p" "$EDGE6"
  evaluate_once "$P/prefill_be_wy3p_bv64_edge6.jsonl" $PRE "$S/gdn_prefill_chunked_wy3p@BV=64,num_warps_h=8" "$EDGE6"
  evaluate_once "$P/prefill_be_retained_edge6.jsonl" $PRE "$D/recurrent_wy3f_bv64_401.json" "$EDGE6"
  evaluate_once "$P/prefill_bd_retained_long.jsonl" $PRE "$D/recurrent_wy3f_bv64_401.json" "$LONG"
  step "$(left)" python3 benchmarks/contest.py --operators $PRE --no-baselines \
    --solution "$PRE=$D/recurrent_wy3v_bv64_401.json" --budget-s 100000 --name prefill_wy3v_bd \
    --traces $P/contest_scratch_bd --resume
) &
finish_session $!
