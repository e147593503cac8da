#!/usr/bin/env bash
# Device call EB (2026-12-04), after calls DZ / EA: the new MoE seed moe_grouped_fp8_q8cf (q8rg with the short calls'
# combine inside GEMM2's launch: the token's last pair's program sums its rows; no last launch for the GPU to wait
# for). Its GPU tests; then, only if they passed, over the 5 workloads of 1-16 tokens the retained dispatch and
# solutions/dispatch/q8cf16_16_retained.json (q8cf at the retained short point up to 16 tokens, the retained dispatch
# above) alternating three times each, every evaluation a new process ($P/moe_eb_{ret,cf16}_<i>.jsonl); q8cf's span
# anatomy at 1 token in three processes; over the 11 workloads of 17-80 tokens the retained dispatch and
# q8cf80_80_retained.json (fused up to 80 tokens) once each ($P/moe_eb_{ret,cf80}_mid.jsonl).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=eb END_BY=540 bash scripts/sessions/gpu_session_eb.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/%s.json"
RET=q8rg_m16n128n2_64s4f_ci_q8s2g3b_q8s2g3_80_4096
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 240 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k q8cf
  if last_step_passed; then
    short=$(axis_band "$MOE" seq_len 1 17)
    for i in 1 2 3; do
      evaluate_once "$P/moe_eb_ret_$i.jsonl" "$MOE" "$(printf "$PAT" $RET)" "$short"
      evaluate_once "$P/moe_eb_cf16_$i.jsonl" "$MOE" "$(printf "$PAT" q8cf16_16_retained)" "$short"
    done
    for i in 1 2 3; do
      step "$(left)" python3 benchmarks/span_anatomy.py --operator "$MOE" --solution "$(printf "$PAT" q8cf16_16_retained)" \
        --workloads e05c6c03 --name "moe_1tok_cf16_${i}_eb"
    done
    mid=$(axis_band "$MOE" seq_len 17 81)
    evaluate_once "$P/moe_eb_ret_mid.jsonl" "$MOE" "$(printf "$PAT" $RET)" "$mid"
    evaluate_once "$P/moe_eb_cf80_mid.jsonl" "$MOE" "$(printf "$PAT" q8cf80_80_retained)" "$mid"
  fi
) &
finish_session $!
