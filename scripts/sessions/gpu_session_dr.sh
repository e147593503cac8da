#!/usr/bin/env bash
# Device call DR (2026-12-03, after call DQ). Call DQ's pick (picked_dq.json: gdn_decode_cuda R 4 / LPR 8 / 4 warps
# per block / PER_ROW at batch 1-4, lean BV 4 to 16, lean BV 16 from the new state to 32, gdn_decode_cuda R 8 /
# LPR 16 / 2 warps above) swept 1.104x vs fla, the first sweep above 1.10 - but call DP's table had its batch-48 row
# level with lean's. One GPU, one queue:
#   1. picked_dq and the retained picked_dl, each swept again with fla over the 54 workloads (the repeat the
#      adoption rests on) -> contest_decode_picked_{dq,dl}_dr.md;
#   2. benchmarks/decode_copy_ceiling.py at batch 1-64 around DQ's CUDA picks (LPR 8 at R 4 on 2 / 4 / 8 warps per
#      block, with and without PER_ROW; LPR 16 at R 8 on 1 / 2 / 4 warps, at R 16 on 2) beside the retained rows,
#      decode_bands' pick and, unless it is picked_dq.json again, its sweep with fla -> picked_dr.json.
# (since the review of 2026-12-03, third session: the retained rows from gpu_env.sh's decode_rows, the same rows)
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dr END_BY=520 bash scripts/sessions/gpu_session_dr.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_decode_pick_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  C="operators/$DEC/solutions/seeds/gdn_decode_cuda"
  mapfile -t ROWS < <(decode_rows)
  decode_fla_sweep picked_dq "decode_picked_dq_${CALL}" "$P/contest_scratch_${CALL}_dq"
  decode_fla_sweep picked_dl "decode_picked_dl_${CALL}" "$P/contest_scratch_${CALL}_dl"
  decode_pick_sweep 1,4,8,16,32,48,64 picked_dq \
    "${ROWS[@]}" \
    "cu4l8w2=$C@LPR=8,WARPS=2" "cu4l8w4=$C@LPR=8,WARPS=4" "cu4l8w8=$C@LPR=8,WARPS=8" \
    "p4l8w4=$C@LPR=8,WARPS=4,PER_ROW=1" "p4l8w8=$C@LPR=8,WARPS=8,PER_ROW=1" \
    "cu8l16w1=$C@R=8,LPR=16" "cu8l16w2=$C@R=8,LPR=16,WARPS=2" "cu8l16w4=$C@R=8,LPR=16,WARPS=4" \
    "cu8l8w4=$C@R=8,LPR=8,WARPS=4" "cu16l16w2=$C@R=16,LPR=16,WARPS=2"
) &
finish_session $!
