#!/usr/bin/env bash
# Device call BZ (queued 2026-12-02, after calls BW, BX, BY), in this order:
#   1. MoE: contest sweep of dispatch/q8rg_m16s4f_q8rt_m64s4f_q8ex_m64s4fy_80_4096.json: call BW's dispatch
#      (q8rg up to 80 tokens, 0.68-0.95 of the retained q8rt there; q8ex with bf16 GEMM2 rows above: 0.826-0.843 at
#      11,948-14,107 tokens) with q8rt kept at 81-4,096 tokens, where q8ex's host sync cost more than its exact grid
#      saved (901 tokens: 0.859 against 0.674 ms; span anatomy: 280 us of the span idle while the host issues).
#   2. GDN prefill: contest sweep of dispatch/recurrent_wy3b_401.json (the retained dispatch with wy3b_seqs16_c32
#      from 402 tokens: call BX/BY, the 19 workloads of 461-2,284 tokens side by side, 0.835 / 0.837 of wy3f there).
#      Resumable (--resume): a sweep cut by the call's limit continues in the next call.
# Usage (carry .whl):  CALL=bz END_BY=440 bash scripts/gpu_session_bz.sh
source "$(dirname "$0")/gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $MOE operators/$MOE/solutions/dispatch/q8rg_m16s4f_q8rt_m64s4f_q8ex_m64s4fy_80_4096.json \
    moe_3way_bz "$P/contest_scratch_bz"
  contest_sweep $GDN operators/$GDN/solutions/dispatch/recurrent_wy3b_401.json prefill_wy3b401_bz \
    "$P/contest_scratch_bz"
) &
finish_session $!
