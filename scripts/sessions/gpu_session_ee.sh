#!/usr/bin/env bash
# Device call EE (2026-12-04), after call ED (q8bp's plan: the short MoE call's launches at -7 / +7 / +19 us instead of
# -8 / +21 / +49; side by side 271.2 vs 271.5 us over the 16 workloads of 1-80 tokens): the contest sweeps of
# solutions/dispatch/q8bp_80_retained.json and of the retained dispatch, in that order, on the same instance (the
# change's ratio over the 19 workloads; adopted only if not slower).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ee END_BY=400 bash scripts/sessions/gpu_session_ee.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/%s.json"
RET=q8rg_m16n128n2_64s4f_ci_q8s2g3b_q8s2g3_80_4096
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep "$MOE" "$(printf "$PAT" q8bp_80_retained)" moe_q8bp_80_retained_ee "$P/contest_scratch_ee_bp"
  contest_sweep "$MOE" "$(printf "$PAT" $RET)" moe_retained_ee "$P/contest_scratch_ee_ret"
) &
finish_session $!
