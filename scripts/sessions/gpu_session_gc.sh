#!/usr/bin/env bash
# Device call GC (2026-12-04): after call GB (gpu_session_gb.sh: the prep kernel's chunk inverse by halves won on the
# long band's C 64 leaves, 1.23-1.39x on 3,271-5,709 tokens side by side), finish GB's contest sweep of
# recurrent_wy3hh_1376_s2bv32 (halves in every leaf; resumed at workload 67 of 100), then the same dispatch with the
# C 32 leaves' prep at 2 warps (recurrent_wy3hh2_1376_s2bv32: GB's kernel sweep, 8,192 tokens / 20 sequences, 0.0474
# against 0.0560 ms at 4 warps) side by side on 8 of the 8,192-token workloads (the only ones its C 32 leaf runs), hh
# first and again last; the contest sweep of hh2 if it is the faster (name prefill_recurrent_wy3hh2_1376_s2bv32_gc).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=gc END_BY=575 bash scripts/sessions/gpu_session_gc.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_gb.md"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep "$PRE" "$PRE_DISPATCH/recurrent_wy3hh_1376_s2bv32.json" prefill_recurrent_wy3hh_1376_s2bv32_gb \
    "$P/contest_scratch_gb"
  uuids=$(prefill_points 8192:20 8192:25 8192:32 8192:35 8192:39 8192:43 8192:48 8192:57)
  prefill_pick_sweep "$uuids" recurrent_wy3hh_1376_s2bv32 recurrent_wy3hh2_1376_s2bv32
) &
finish_session $!
