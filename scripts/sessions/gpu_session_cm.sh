#!/usr/bin/env bash
# Device call CM (2026-12-02), in this order:
#   1. GPU tests of the seed moe_grouped_fp8_q8hp (q8tw with the long calls' host side as one plan per call shape:
#      buffers allocated once, launches bound once and sent to the compiled kernels' launchers, the exact grid's count
#      from a pinned copy of the tile table).
#   2. MoE above 80 tokens (901 / 11,948 / 14,107), side by side: the retained dispatch (call CI) against the same
#      with q8hp from 81 tokens (bound grid up to 4,096, exact above), the retained one again at the end. Why: call CH's
#      span anatomy, the GPU idle 36-54 us before count-and-plan and 18-84 us before GEMM1 there (host 229-467 us per
#      call).
#   3. The new dispatch's span anatomy with its host side (--host-calls 20) at the three long workloads.
#   4. If q8hp is the faster: its dispatch's contest sweep.
# (Rewritten after the call with gpu_env.sh's moe_seed_side_by_side and sweep_unless_kept: the same steps.)
# Usage (carry .whl):  CALL=cm END_BY=540 bash scripts/sessions/gpu_session_cm.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8rg_m16n128n2_64s4f_ci_%s_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(moe_seed_side_by_side q8hp moe_cm_ _long.jsonl 81 100000 "$PAT" q8tw4r1b_q8tw4r1 q8hp4r1b_q8hp4r1)
  step 90 python3 benchmarks/span_anatomy.py --operator $MOE --solution "$(printf "$PAT" q8hp4r1b_q8hp4r1)" \
    --workloads 1a4c6ba1 58a34f27 5e8dc11c --host-calls 20 --name moe_q8hp_host_cm
  sweep_unless_kept $MOE "$BEST" q8tw4r1b_q8tw4r1 "$PAT" moe_q8hp_cm "$P/contest_scratch_cm"
) &
finish_session $!
