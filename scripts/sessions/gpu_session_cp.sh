#!/usr/bin/env bash
# Device call CP (2026-12-02), in this order:
#   (The seed, its dispatch and test case were removed after the call: source at commit 721b671.)
#   1. GPU tests of the seed moe_grouped_fp8_q8ud (q8hp with the long calls' GEMM1 as one dot per K step over the up
#      and gate rows: one wgmma chain, m64n128 per warp group, and one wait per K step instead of two; compiled for
#      sm_90 here 238 registers, one wait per K step against q8td's two).
#   2. MoE above 80 tokens (901 / 11,948 / 14,107), side by side: the retained dispatch (call CM) against the same with
#      q8ud from 81 tokens, the retained one again at the end.
#   3. If q8ud is the faster: its dispatch's contest sweep.
# (Rewritten after the call with gpu_env.sh's moe_seed_side_by_side and sweep_unless_kept: the same steps.)
# Usage (carry .whl):  CALL=cp END_BY=420 bash scripts/sessions/gpu_session_cp.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8rg_m16n128n2_64s4f_ci_%s_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(moe_seed_side_by_side q8ud moe_cp_ _long.jsonl 81 100000 "$PAT" q8hp4r1b_q8hp4r1 q8ud4r1b_q8ud4r1)
  sweep_unless_kept $MOE "$BEST" q8hp4r1b_q8hp4r1 "$PAT" moe_q8ud_cp "$P/contest_scratch_cp"
) &
finish_session $!
