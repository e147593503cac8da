#!/usr/bin/env bash
# Device call CJ (2026-12-02): all 19 MoE workloads side by side, the retained dispatch of call CH against call CI's
# combination (short point at GEMM2 BLOCK_N2 64: 0.997 of it up to 80 tokens; q8tw over the bound grid at 901
# tokens: 0.899), the retained one again at the end: the change's own ratio over the contest's workloads on one
# machine instance (call CI's sweep, 0.4602 ms, and call CH's, 0.4764, ran on two instances).
# Usage (carry .whl):  CALL=cj END_BY=300 bash scripts/sessions/gpu_session_cj.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(side_by_side $MOE moe_cj_ _all.jsonl "" "$MD/q8rg_m16n128%s_80_4096.json" s4f_q8rt_m64s4f_q8tw4r1 \
    n2_64s4f_ci_q8tw4r1b_q8tw4r1)
  echo "=== the fastest: $BEST" >> "$L"
  evaluate_once "$P/moe_cj_s4f_q8rt_m64s4f_q8tw4r1_all_again.jsonl" $MOE \
    "$MD/q8rg_m16n128s4f_q8rt_m64s4f_q8tw4r1_80_4096.json"
) &
finish_session $!
