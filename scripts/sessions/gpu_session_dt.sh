#!/usr/bin/env bash
# Device call DT (2026-12-03, after call DS): issue 5's controller-efficiency table for GDN decode on the space of
# the CUDA seed gdn_decode_cuda (R 1-16 rows per warp x LPR 8-32 lanes per row x 1-8 warps per block x output from
# the old / new state x PER_ROW: 192 points under R * LPR >= 32; calls DP-DR measured its slopes: PER_ROW mostly
# slower, LPR 8 fastest at batch 1-8, LPR 16 at 32-64, unlike gdn_decode_lean's flat top), each point on 7 workloads
# (one per batch size). The first try at the whole space was lost (the machine taken back mid-call, 200 s of the
# session's device time gone): the 48-point sub-space with the output from the old state and PER_ROW=0 (R x LPR x
# WARPS; fits the ~470 s left) -> benchmarks/results/controller_space_gdn_decode_cuda_h200.json (resumes point by point;
# rerun with another CALL after unpacking to finish it). Replayed on the CPU afterwards:
#   python benchmarks/controller_efficiency.py --mode table --table benchmarks/results/controller_space_gdn_decode_cuda_h200.json --budget B
# Usage (carry .whl_camp):  WHEELS=.whl_camp CALL=dt END_BY=330 bash scripts/sessions/gpu_session_dt.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" benchmarks/results/controller_space_gdn_decode_cuda_h200.json
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  measure_space "$DEC" benchmarks/results/controller_space_gdn_decode_cuda_h200.json --seed-kernel gdn_decode_cuda \
    --fix OUT_FROM_OLD=1 PER_ROW=0
) &
finish_session $!
