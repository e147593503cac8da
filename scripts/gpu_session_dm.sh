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
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dm END_BY=330 bash scripts/gpu_session_dm.sh
source "$(dirname "$0")/gpu_env.sh" session
keep_call_results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.*" "benchmarks/results/decode_bands_*${CALL}*" \
  "operators/$DEC/solutions/dispatch/picked_${CALL}.json"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"; O="$S/gdn_decode_order"
  step 120 python3 -m pytest -q -m gpu tests/test_seeds.py -k gdn_decode_order
  ORDER=()
  last_step_passed && ORDER=(--solution "o8w8=$O" --solution "o8w8se=$O@STORE_EARLY=1" \
    --solution "o8w8sf=$O@STATE_FIRST=1" --solution "o8w8of=$O@OUT_FROM_OLD=1" --solution "o8w4=$O@num_warps=4" \
    --solution "o4w1=$O@BV=4,num_warps=1" --solution "o4w1of=$O@BV=4,num_warps=1,OUT_FROM_OLD=1" \
    --solution "o4w1se=$O@BV=4,num_warps=1,STORE_EARLY=1" --solution "o4w4=$O@BV=4,num_warps=4")
  step "$(left)" python3 benchmarks/decode_copy_ceiling.py --name "$CALL" --batches 1,4,8,16,32,48,64 --no-fla \
    --solution "vtile_w8=$S/gdn_decode_vtile@BV=8,num_warps=8" --solution "lean4=$S/gdn_decode_lean@BV=4" \
    --solution "lean8n=$S/gdn_decode_lean@OUT_FROM_OLD=0" --solution "lean16n=$S/gdn_decode_lean@BV=16,OUT_FROM_OLD=0" \
    "${ORDER[@]}"
  step 60 python3 benchmarks/decode_bands.py --results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.json" \
    --above "$S/gdn_decode_lean@OUT_FROM_OLD=0" -o "operators/$DEC/solutions/dispatch/picked_${CALL}.json"
  if last_step_passed; then
    if cmp -s "operators/$DEC/solutions/dispatch/picked_${CALL}.json" "operators/$DEC/solutions/dispatch/picked_dl.json"
    then echo "=== call DL's pick again: no sweep" >> "$L"
    else decode_fla_sweep "picked_${CALL}" "decode_picked_${CALL}" "$P/contest_scratch_${CALL}"; fi
  fi
) &
finish_session $!
