#!/usr/bin/env bash
# Device call DU (2026-12-03, right after call DT on the still-warm machine): issue 5's controller-efficiency table
# on gdn_decode_cuda's 96-point sub-space with the output from the old state (R x LPR x WARPS x PER_ROW), each point
# on 7 workloads -> benchmarks/results/controller_space_gdn_decode_cuda_ofo1_h200.json. Replayed on the CPU:
#   python benchmarks/controller_efficiency.py --mode table --table benchmarks/results/controller_space_gdn_decode_cuda_ofo1_h200.json --budget B
# (The call itself was typed as this script's lines with WHEELS set after gpu_env.sh had run - the install found no
# .whl/ and the warm machine's /tmp/site from call DT served; this script sets WHEELS first.)
# Usage (carry .whl_camp):  WHEELS=.whl_camp CALL=du END_BY=250 bash scripts/sessions/gpu_session_du.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" benchmarks/results/controller_space_gdn_decode_cuda_ofo1_h200.json
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  measure_space "$DEC" benchmarks/results/controller_space_gdn_decode_cuda_ofo1_h200.json --seed-kernel gdn_decode_cuda \
    --fix OUT_FROM_OLD=1
) &
finish_session $!
