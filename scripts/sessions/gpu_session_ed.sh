#!/usr/bin/env bash
# Device call ED (2026-12-04), after call EC (~23 us of host Python between the short MoE call's launches, twice that
# in some processes): the new seed moe_grouped_fp8_q8bp (q8rg with the short calls' three launches issued back to back
# from a plan per call shape, bound to the compiled kernels). Its GPU tests; then, only if they passed, its span
# anatomy with the launch calls at 1 and 7 tokens in four processes (solutions/dispatch/q8bp_80_retained.json: q8bp
# up to 80 tokens, the retained dispatch above), and side by side over the 16 workloads of 1-80 tokens with the
# retained dispatch, alternating twice, each evaluation a new process ($P/moe_ed_{ret,bp}_<i>.jsonl).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ed END_BY=560 bash scripts/sessions/gpu_session_ed.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/%s.json"
RET=q8rg_m16n128n2_64s4f_ci_q8s2g3b_q8s2g3_80_4096
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 240 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k q8bp
  if last_step_passed; then
    for i in 1 2 3 4; do
      step "$(left)" python3 benchmarks/span_anatomy.py --operator "$MOE" --solution "$(printf "$PAT" q8bp_80_retained)" \
        --workloads e05c6c03 b8f4f012 --name "moe_launch_bp${i}_ed"
    done
    short=$(axis_band "$MOE" seq_len 1 81)
    for i in 1 2; do
      evaluate_once "$P/moe_ed_ret_$i.jsonl" "$MOE" "$(printf "$PAT" $RET)" "$short"
      evaluate_once "$P/moe_ed_bp_$i.jsonl" "$MOE" "$(printf "$PAT" q8bp_80_retained)" "$short"
    done
  fi
) &
finish_session $!
