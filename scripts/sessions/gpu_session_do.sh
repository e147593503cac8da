#!/usr/bin/env bash
# Device call DO (2026-12-03, after call DN). One GPU, one queue: decode_pick_sweep over every batch size of the GDN
# decode workloads with the retained dispatch's rows and gdn_decode_lean at BV 16 / 32 on 8 warps from the new state
# (call DN's space table: BV 16 / 8 warps 14.36 vs 14.49 us for BV 8 / 1 warp at batch 48, level at 64), the picker
# at --min-gain 0.005 (MIN_GAIN; that gap is 0.9 %) -> decode_copy_ceiling_h200_do.{md,json},
# operators/$DEC/solutions/dispatch/picked_do.json and, unless it is picked_dl.json again (the retained dispatch),
# its sweep with fla over all 54 workloads (contest_decode_picked_do.md): adopted only if it beats call DL's 1.097x.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=do END_BY=300 bash scripts/sessions/gpu_session_do.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_decode_pick_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"
  MIN_GAIN=0.005 decode_pick_sweep 1,4,8,16,32,48,64 picked_dl "vtile_w8=$S/gdn_decode_vtile@BV=8,num_warps=8" \
    "lean4=$S/gdn_decode_lean@BV=4" "lean8n=$S/gdn_decode_lean@OUT_FROM_OLD=0" \
    "lean16n=$S/gdn_decode_lean@BV=16,OUT_FROM_OLD=0" "lean16w8n=$S/gdn_decode_lean@BV=16,num_warps=8,OUT_FROM_OLD=0" \
    "lean32w8n=$S/gdn_decode_lean@BV=32,num_warps=8,OUT_FROM_OLD=0"
) &
finish_session $!
