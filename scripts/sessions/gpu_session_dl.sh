#!/usr/bin/env bash
# Device call DL (2026-12-03, after call DK). One GPU, one queue:
#   1. benchmarks/decode_copy_ceiling.py at every batch size of the GDN decode workloads (1-64) over the retained
#      dispatch's kernels (gdn_decode_vtile BV 8 / 8 warps, gdn_decode_lean BV 4 and BV 8 from the new state) and
#      gdn_decode_lean's wider one-warp tiles (BV 16: 8 KiB of state per warp, batch 64 in one wave of 4096
#      programs instead of two of 8192; BV 32 on 2 warps), output from the loaded or the new state. Call DK: BV 1-2
#      lost (block scheduling: 4x the programs, 2x the time at batch 16); at batch 32-64 the decode runs 0.5-0.7 us
#      above a tile copy of its bytes, maybe for want of bytes in flight (132 SMs x 32 one-warp programs x 4 KiB)
#      -> benchmarks/results/decode_copy_ceiling_h200_dl.{md,json};
#   2. benchmarks/decode_bands.py: the fastest checked row at each batch size merged into a band dispatch
#      -> operators/$DEC/solutions/dispatch/picked_dl.json, benchmarks/results/decode_bands_picked_dl.json;
#   3. unless it is call DK's pick again (= lean4_bv8_w8_lean4_leannew_1_8_16.json), its contest sweep with fla over all 54 workloads -> contest_decode_picked_dl.md:
#      kept only if its ratio to fla beats calls DI / DK's 1.095x (lean4_bv8_w8_lean4_leannew_1_8_16).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dl END_BY=300 bash scripts/sessions/gpu_session_dl.sh
# (since the review of 2026-12-03: the steps as gpu_env.sh's decode_pick_sweep; decode_bands.py then picked with
# --min-gain 0, the fastest row everywhere)
source "$(dirname "$0")/../gpu_env.sh" session
keep_decode_pick_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"
  decode_pick_sweep 1,4,8,16,32,48,64 lean4_bv8_w8_lean4_leannew_1_8_16 \
    "vtile_w8=$S/gdn_decode_vtile@BV=8,num_warps=8" "lean4=$S/gdn_decode_lean@BV=4" \
    "lean8n=$S/gdn_decode_lean@OUT_FROM_OLD=0" "lean8=$S/gdn_decode_lean" "lean16=$S/gdn_decode_lean@BV=16" \
    "lean16n=$S/gdn_decode_lean@BV=16,OUT_FROM_OLD=0" "lean32w2n=$S/gdn_decode_lean@BV=32,num_warps=2,OUT_FROM_OLD=0"
) &
finish_session $!
