#!/usr/bin/env bash
# Device call DH (2026-12-03). One GPU, one queue, in order of importance:
#   1. the contest sweep with fla on all 54 workloads of the three-band dispatch bv8_w8_lean4_leannew_8_16 (vtile BV 8 /
#      8 warps up to batch 8, gdn_decode_lean at BV 4 for 9-16 and with the output from the new state above; call DG's
#      table: 5.74 vs 6.24 us at batch 16, 9.70 / 14.50 / 18.46 vs 9.98 / 14.69 / 18.59 at 32 / 48 / 64)
#      -> benchmarks/results/contest_decode_bv8_w8_lean4_leannew_8_16_dh.md (traces $P/contest_scratch_dh_d3);
#   2. benchmarks/decode_copy_ceiling.py at batch 1-16: the retained kernel, fla, gdn_decode_lean at 8 warps (BV 8)
#      and at 1 warp (BV 4 / 8) -> benchmarks/results/decode_copy_ceiling_h200_dh.{md,json};
#   3. the same sweep for leanw8_lean4_leannew_8_16 (gdn_decode_lean at 8 warps, output from the new state, up to batch
#      8) -> contest_decode_leanw8_lean4_leannew_8_16_dh.md (traces $P/contest_scratch_dh_d4).
# Ran 11:19-11:23 UTC carrying .whl_eval (a first attempt with .whl_df was refused: the checkout had grown past the
# device tool's 64 MiB with it); the sweeps, written out in the call, are `decode_fla_sweep` since the review.
# Usage:  WHEELS=.whl_eval CALL=dh END_BY=<device time left - 90> bash scripts/sessions/gpu_session_dh.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"
  decode_fla_sweep bv8_w8_lean4_leannew_8_16 "decode_bv8_w8_lean4_leannew_8_16_${CALL}" "$P/contest_scratch_${CALL}_d3"
  step "$(left)" python3 benchmarks/decode_copy_ceiling.py --name "$CALL" --batches 1,4,8,16 \
    --solution "retained=operators/$DEC/retained/solution.json" \
    --solution "lean_w8_new=$S/gdn_decode_lean@num_warps=8,OUT_FROM_OLD=0" \
    --solution "lean_w8=$S/gdn_decode_lean@num_warps=8" --solution "lean_bv4=$S/gdn_decode_lean@BV=4" \
    --solution "lean=$S/gdn_decode_lean"
  decode_fla_sweep leanw8_lean4_leannew_8_16 "decode_leanw8_lean4_leannew_8_16_${CALL}" "$P/contest_scratch_${CALL}_d4"
) &
finish_session $!
