#!/usr/bin/env bash
# Device call CO (2026-12-02), in this order:
#   1. MoE above 4,096 tokens (11,948 / 14,107), side by side: the retained dispatch (call CM: q8hp, GEMM1 at 8 warps /
#      4 stages, one program per SM: 248 registers, 140 KB of shared memory) against q8hp there at 4 warps / 3 stages
#      (w4s3: GEMM1 107 KB, two programs per SM) and 4 warps / 2 stages (w4s2: 74 KB, two per SM; GEMM2 three), the
#      retained one again at the end. Why: Triton waits for each GEMM1 wgmma before its block-scale FMAs (TTGIR:
#      warp_group_dot_wait pendings 0 after each dot), so one resident program leaves the tensor cores idle during
#      them; a second program per SM can issue its wgmma then (counts compiled here for sm_90, Triton 3.9).
#   2. The retained dispatch's span anatomy at 11,948 / 14,107 tokens again (call CM: 106 vs 35 us before GEMM1).
# (Rewritten after the call with gpu_env.sh's sweep_unless_kept: the same steps.)
# Usage (carry .whl):  CALL=co END_BY=400 bash scripts/sessions/gpu_session_co.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8rg_m16n128n2_64s4f_ci_q8hp4r1b_q8hp%s_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(side_by_side_again $MOE moe_co_ _long.jsonl "$(axis_band $MOE seq_len 4097 100000)" "$PAT" 4r1 w4s3 w4s2)
  step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution "$(printf "$PAT" 4r1)" \
    --workloads 58a34f27 5e8dc11c --host-calls 20 --name moe_q8hp_host_co
  sweep_unless_kept $MOE "$BEST" 4r1 "$PAT" moe_q8hp${BEST}_co "$P/contest_scratch_co"
) &
finish_session $!
