#!/usr/bin/env bash
# Device call DV (2026-12-03): issue 5's controller-efficiency table on gdn_decode_cuda's whole seed space (R x LPR x
# WARPS x OUT_FROM_OLD x PER_ROW under R * LPR >= 32: 192 points; calls DT / DU measured the sub-spaces of 48 and 96
# points with OUT_FROM_OLD=1), each point on 7 workloads -> benchmarks/results/controller_space_gdn_decode_cuda_full_h200.json,
# then, with the time left, the same space measured a second time (a repeat, to size the table's own noise) ->
# benchmarks/results/controller_space_gdn_decode_cuda_full_rep_h200.json (a later call resumes it). Replayed on the CPU:
#   python benchmarks/controller_efficiency.py --mode table --table benchmarks/results/controller_space_gdn_decode_cuda_full_h200.json --budget B
# Usage (carry .whl_camp):  WHEELS=.whl_camp CALL=dv END_BY=570 bash scripts/sessions/gpu_session_dv.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" benchmarks/results/controller_space_gdn_decode_cuda_full_h200.json \
  benchmarks/results/controller_space_gdn_decode_cuda_full_rep_h200.json
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  measure_space "$DEC" benchmarks/results/controller_space_gdn_decode_cuda_full_h200.json --seed-kernel gdn_decode_cuda
  measure_space "$DEC" benchmarks/results/controller_space_gdn_decode_cuda_full_rep_h200.json --seed-kernel gdn_decode_cuda
) &
finish_session $!
