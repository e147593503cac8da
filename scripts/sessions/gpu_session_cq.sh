#!/usr/bin/env bash
# Device call CQ (2026-12-02), in this order:
#   1. GPU tests of the seed moe_grouped_fp8_q8s2 (q8hp with the long calls' GEMM2 at its own pipeline stages,
#      STAGES2: at 4 warps 3 stages take 74 KB and 2 stages 49 KB of shared memory, three programs per SM against two
#      at the retained 4 stages' 99 KB; compiled for sm_90 here, 151-154 registers).
#   2. MoE above 80 tokens (901 / 11,948 / 14,107), side by side: the retained dispatch (call CM) against the same
#      with q8s2 at STAGES2 3 and 2 from 81 tokens, the retained one again at the end.
#   3. If a q8s2 point is the faster: its dispatch's contest sweep.
# (Rewritten after the call with gpu_env.sh's moe_seed_side_by_side and sweep_unless_kept: the same steps.)
# Usage (carry .whl):  CALL=cq END_BY=420 bash scripts/sessions/gpu_session_cq.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8rg_m16n128n2_64s4f_ci_%s_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(moe_seed_side_by_side q8s2 moe_cq_ _long.jsonl 81 100000 "$PAT" q8hp4r1b_q8hp4r1 q8s2g3b_q8s2g3 \
    q8s2g2b_q8s2g2)
  sweep_unless_kept $MOE "$BEST" q8hp4r1b_q8hp4r1 "$PAT" moe_${BEST}_cq "$P/contest_scratch_cq"
) &
finish_session $!
