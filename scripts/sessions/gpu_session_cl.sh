#!/usr/bin/env bash
# Device call CL (queued 2026-12-02 for the next session), in this order:
#   1. GPU tests of the seed moe_grouped_fp8_q8rd (its new SHORT_STAGES2: the short calls' GEMM2 stages apart from
#      GEMM1's num_stages).
#   2. MoE up to 80 tokens (16 workloads), side by side: the retained dispatch (call CI) against q8rd at the same short
#      point with q8's pointer GEMM2 (s4g0: the retained point on q8rd, a control), GEMM1 at 3 stages with GEMM2 at 4
#      (s3g4: two GEMM1 programs per SM, 2 x 3 x 34 KB in flight instead of 4 x 34 KB), GEMM1 at 5 with GEMM2 at 4
#      (s5g4), GEMM2 at 5 (s4g5). Why: call CI, both GEMMs at 3 stages read 1.090 of the retained, at 5 stages 1.024,
#      with the short GEMM1 (fused with the routing) at ~3.8 TB/s and GEMM2 at 3.77 (call CH); one num_stages drives
#      both. The retained one again at the end; the fastest's contest sweep.
# (Rewritten after the call with gpu_env.sh's moe_seed_side_by_side: the same steps.)
# Usage (carry .whl):  CALL=cl END_BY=480 bash scripts/sessions/gpu_session_cl.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8r%s_q8tw4r1b_q8tw4r1_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(moe_seed_side_by_side q8rd moe_cl_ _short.jsonl 1 81 "$PAT" g_m16n128n2_64s4f_ci d_m16n128n2_64s4g0 \
    d_m16n128n2_64s3g4 d_m16n128n2_64s5g4 d_m16n128n2_64s4g5)
  if [ "$BEST" != g_m16n128n2_64s4f_ci ] && [ "$BEST" != d_m16n128n2_64s4g0 ]; then
    contest_sweep $MOE "$(printf "$PAT" "$BEST")" moe_q8r${BEST}_cl "$P/contest_scratch_cl"
  fi
) &
finish_session $!
