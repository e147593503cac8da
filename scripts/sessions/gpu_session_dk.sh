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
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dk END_BY=300 bash scripts/sessions/gpu_session_dk.sh
# (since the review of 2026-12-03: the steps as gpu_env.sh's decode_pick_sweep; decode_bands.py then picked with
# --min-gain 0, the fastest row everywhere)
source "$(dirname "$0")/../gpu_env.sh" session
keep_decode_pick_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"
  decode_pick_sweep 1,4,8,16 "" "vtile_w8=$S/gdn_decode_vtile@BV=8,num_warps=8" "lean4=$S/gdn_decode_lean@BV=4" \
    "lean4n=$S/gdn_decode_lean@BV=4,OUT_FROM_OLD=0" "lean2=$S/gdn_decode_lean@BV=2" \
    "lean2n=$S/gdn_decode_lean@BV=2,OUT_FROM_OLD=0" "lean2w2=$S/gdn_decode_lean@BV=2,num_warps=2" \
    "lean1=$S/gdn_decode_lean@BV=1" "lean1n=$S/gdn_decode_lean@BV=1,OUT_FROM_OLD=0" \
    "lean8n=$S/gdn_decode_lean@OUT_FROM_OLD=0"
) &
finish_session $!
