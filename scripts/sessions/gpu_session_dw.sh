#!/usr/bin/env bash
# Device call DW (2026-12-03): the new MoE seed moe_grouped_fp8_q8sk (q8rg with the short calls' GEMM1 split over H,
# SPLIT_K shares per tile and N block) - its GPU tests, then side by side over the 5 workloads of 1-16 tokens: the
# retained dispatch against the same dispatch with q8sk at SPLIT_K 4 / 2 / 8 up to 16 tokens
# (solutions/dispatch/q8sk<k>_16_retained.json: q8sk at the retained short point, the retained dispatch above), the
# retained one again last; when one of them wins, its contest sweep and the retained dispatch's, in that order, on
# the same machine instance (the change's ratio over the 19 workloads).
# Usage (carry .whl_camp):  WHEELS=.whl_camp CALL=dw END_BY=560 bash scripts/sessions/gpu_session_dw.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/%s.json"
RET=q8rg_m16n128n2_64s4f_ci_q8s2g3b_q8s2g3_80_4096
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(moe_seed_side_by_side moe_grouped_fp8_q8sk moe_dw_ _short.jsonl 1 17 "$PAT" $RET q8sk4_16_retained \
    q8sk2_16_retained q8sk8_16_retained)
  if [ "$BEST" != $RET ]; then
    contest_sweep $MOE "$(printf "$PAT" "$BEST")" "moe_${BEST}_dw" "$P/contest_scratch_dw_sk"
    contest_sweep $MOE "$(printf "$PAT" $RET)" moe_retained_dw "$P/contest_scratch_dw_ret"
  fi
) &
finish_session $!
