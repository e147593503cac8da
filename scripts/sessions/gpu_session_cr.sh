#!/usr/bin/env bash
# Device call CR (2026-12-02): the contest sweeps of the q8s2 dispatch (call CQ: 0.984 of the retained side by side
# on the long band, the retained one again 1.003; its sweep there 0.4570 ms on an instance whose unchanged short bands
# read 1.03x call CM's) and of the retained dispatch (call CM: q8hp), in that order, on one machine instance: the
# change's ratio over the 19 workloads.
# Usage (carry .whl):  CALL=cr END_BY=240 bash scripts/sessions/gpu_session_cr.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8rg_m16n128n2_64s4f_ci_%s_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $MOE "$(printf "$PAT" q8s2g3b_q8s2g3)" moe_q8s2g3b_q8s2g3_cr "$P/contest_scratch_cr_s2"
  contest_sweep $MOE "$(printf "$PAT" q8hp4r1b_q8hp4r1)" moe_q8hp4r1b_q8hp4r1_cr "$P/contest_scratch_cr_hp"
) &
finish_session $!
