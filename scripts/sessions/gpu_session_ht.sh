#!/usr/bin/env bash
# Device call HT (prepared 2026-12-07, stop 69): issue 5's controller-efficiency table on a larger GDN decode space,
# gdn_decode_cuda_hints (gdn_decode_cuda's R x LPR x WARPS x OUT_FROM_OLD x PER_ROW, 192 points, times the state's
# load and store cache policies LOAD_CS x STORE_CS: 768 points), each point on 7 workloads. First the seed's own GPU
# checks (its points.json against the fp32 reference); then its OUT_FROM_OLD=1, PER_ROW=0 quarter (192 points: call
# DT's 48-point R x LPR x WARPS sub-space of gdn_decode_cuda times the two policies; the whole space, ~20 min at ~1.5 s
# a point, does not fit one session's device time; on 2026-12-07 eleven starts failed before the 20th try ran) measured point
# by point into benchmarks/results/controller_space_gdn_decode_cuda_hints_sub_<card>.json (h200 on an H200, else h100:
# a table never mixes cards), resumed by a later call on the same kind of card. Replayed on the CPU:
#   python benchmarks/controller_efficiency.py --mode table --table benchmarks/results/controller_space_gdn_decode_cuda_hints_sub_h100.json --budget B
# The H100 quarter was finished by call HT3 (2026-12-07 23:45, 98 points; the seed's GPU checks passed there). Once a
# card's quarter is complete, the call goes on to the whole 768-point space, controller_space_gdn_decode_cuda_hints_<card>.json,
# which takes the quarter's points over (--from-table: each point measured once) and measures the other 576. Call HT4
# (2026-12-08 00:42) left it at 305 / 768 on the H100: a point takes ~3 s (the ~1.5 s above was low), ~23 min to go.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<seconds> bash scripts/sessions/gpu_session_ht.sh
source "$(dirname "$0")/../gpu_env.sh" session
CARD=h100; if card_is H200; then CARD=h200; fi
TABLE=benchmarks/results/controller_space_gdn_decode_cuda_hints_sub_${CARD}.json
FULL=benchmarks/results/controller_space_gdn_decode_cuda_hints_${CARD}.json
keep_packed "results_${CALL}" "$TABLE" "$FULL"
( gpu0_log
  if [ "${SKIP_CHECKS:-0}" != 1 ]; then
    ( END_BY=$(( SECONDS + $(upto 90) + 10 )); GPU_K=gdn_decode_cuda_hints gpu_suite tests/test_seeds.py )
  fi
  measure_space "$DEC" "$TABLE" --seed-kernel gdn_decode_cuda_hints --fix OUT_FROM_OLD=1 PER_ROW=0
  measure_space "$DEC" "$FULL" --seed-kernel gdn_decode_cuda_hints --from-table "$TABLE"
) &
finish_session $!
