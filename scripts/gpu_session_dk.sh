#!/usr/bin/env bash
# Device call DK (2026-12-03, after call DI). One GPU, one queue:
#   1. benchmarks/decode_copy_ceiling.py at batch 1 / 4 / 8 / 16 over the GDN decode small-batch candidates: the
#      retained dispatch's kernels there (gdn_decode_vtile BV 8 / 8 warps up to batch 8, gdn_decode_lean BV 4 at
#      batch 1 and 9-16) and gdn_decode_lean's new BV 1 / 2 points (one-warp programs, 4-8 state elements per
#      thread: one wave of 1024-4096 programs at batch 1-8), output from the loaded or the new state
#      -> benchmarks/results/decode_copy_ceiling_h200_dk.{md,json};
#   2. benchmarks/decode_bands.py: the fastest checked row at each of those batch sizes, merged into a band
#      dispatch with gdn_decode_lean@OUT_FROM_OLD=0 above batch 16 (as in the retained dispatch)
#      -> operators/$DEC/solutions/dispatch/picked_dk.json, benchmarks/results/decode_bands_picked_dk.json;
#   3. its contest sweep with fla over all 54 workloads (decode_fla_sweep) -> contest_decode_picked_dk.md: kept only
#      if its ratio to fla beats call DI's 1.095x (lean4_bv8_w8_lean4_leannew_1_8_16, the best so far).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dk END_BY=300 bash scripts/gpu_session_dk.sh
source "$(dirname "$0")/gpu_env.sh" session
keep_call_results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.*" "benchmarks/results/decode_bands_*${CALL}*" \
  "operators/$DEC/solutions/dispatch/picked_${CALL}.json"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"
  step "$(left)" python3 benchmarks/decode_copy_ceiling.py --name "$CALL" --batches 1,4,8,16 --no-fla \
    --solution "vtile_w8=$S/gdn_decode_vtile@BV=8,num_warps=8" --solution "lean4=$S/gdn_decode_lean@BV=4" \
    --solution "lean4n=$S/gdn_decode_lean@BV=4,OUT_FROM_OLD=0" --solution "lean2=$S/gdn_decode_lean@BV=2" \
    --solution "lean2n=$S/gdn_decode_lean@BV=2,OUT_FROM_OLD=0" --solution "lean2w2=$S/gdn_decode_lean@BV=2,num_warps=2" \
    --solution "lean1=$S/gdn_decode_lean@BV=1" --solution "lean1n=$S/gdn_decode_lean@BV=1,OUT_FROM_OLD=0" \
    --solution "lean8n=$S/gdn_decode_lean@OUT_FROM_OLD=0"
  step 60 python3 benchmarks/decode_bands.py --results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.json" \
    --above "$S/gdn_decode_lean@OUT_FROM_OLD=0" -o "operators/$DEC/solutions/dispatch/picked_${CALL}.json"
  last_step_passed && decode_fla_sweep "picked_${CALL}" "decode_picked_${CALL}" "$P/contest_scratch_${CALL}"
) &
finish_session $!
