#!/usr/bin/env bash
# Device call DM (2026-12-03, after call DL). One GPU, one queue:
#   0. the new seed gdn_decode_order's GPU points (tests/test_seeds.py -m gpu -k gdn_decode_order);
#   1. benchmarks/decode_copy_ceiling.py at every batch size of the GDN decode workloads (1-64) over call DL's picks
#      (gdn_decode_vtile BV 8 / 8 warps, gdn_decode_lean BV 4, BV 8 and BV 16 from the new state) and
#      gdn_decode_order's points (the lean arithmetic in the vtile order or in the lean order, stored early or late,
#      output from the old or the new state, BV 4 / 8, 1 / 4 / 8 warps): at batch 1-16 the decode runs 0.15-0.45 us
#      above a tile copy of its bytes -> benchmarks/results/decode_copy_ceiling_h200_dm.{md,json};
#   2. benchmarks/decode_bands.py: the fastest checked row at each batch size, merged into a band dispatch
#      -> operators/$DEC/solutions/dispatch/picked_dm.json, benchmarks/results/decode_bands_picked_dm.json;
#   3. unless it is call DL's pick again, its contest sweep with fla over all 54 workloads -> contest_decode_picked_dm.md:
#      kept only if its ratio to fla beats call DL's 1.097x (picked_dl).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dm END_BY=330 bash scripts/sessions/gpu_session_dm.sh
# (since the review of 2026-12-03: the steps as gpu_env.sh's decode_pick_sweep; decode_bands.py then picked with
# --min-gain 0, the fastest row everywhere)
source "$(dirname "$0")/../gpu_env.sh" session
keep_decode_pick_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"; O="$S/gdn_decode_order"
  step 120 python3 -m pytest -q -m gpu tests/test_seeds.py -k gdn_decode_order
  ORDER=()
  last_step_passed && ORDER=("o8w8=$O" "o8w8se=$O@STORE_EARLY=1" "o8w8sf=$O@STATE_FIRST=1" "o8w8of=$O@OUT_FROM_OLD=1" \
    "o8w4=$O@num_warps=4" "o4w1=$O@BV=4,num_warps=1" "o4w1of=$O@BV=4,num_warps=1,OUT_FROM_OLD=1" \
    "o4w1se=$O@BV=4,num_warps=1,STORE_EARLY=1" "o4w4=$O@BV=4,num_warps=4")
  decode_pick_sweep 1,4,8,16,32,48,64 picked_dl "vtile_w8=$S/gdn_decode_vtile@BV=8,num_warps=8" \
    "lean4=$S/gdn_decode_lean@BV=4" "lean8n=$S/gdn_decode_lean@OUT_FROM_OLD=0" \
    "lean16n=$S/gdn_decode_lean@BV=16,OUT_FROM_OLD=0" "${ORDER[@]}"
) &
finish_session $!
