#!/usr/bin/env bash
# Device call DN (2026-12-03, after call DJ): issue 5's controller-efficiency table for GDN decode on the larger
# space of the seed gdn_decode_lean (BV 1-32 x 1-8 warps x output from the old / new state: 34 points under its
# constraints; the vtile seed's 18-point table is flat, its best point 1.4 % ahead of the runner-up), each point
# on 7 workloads (one per batch size) -> benchmarks/results/controller_space_gdn_decode_lean_h200.json (resumes point
# by point; rerun with another CALL after unpacking to finish it). Replayed on the CPU afterwards:
#   python benchmarks/controller_efficiency.py --mode table --table benchmarks/results/controller_space_gdn_decode_lean_h200.json --budget B
# Usage (carry .whl_camp; no mlflow needed, but it holds pydantic / hydra / cupti):
#   WHEELS=.whl_camp CALL=dn END_BY=420 bash scripts/sessions/gpu_session_dn.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" benchmarks/results/controller_space_gdn_decode_lean_h200.json
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  measure_space "$DEC" benchmarks/results/controller_space_gdn_decode_lean_h200.json --seed-kernel gdn_decode_lean
) &
finish_session $!
