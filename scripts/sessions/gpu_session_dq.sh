#!/usr/bin/env bash
# Device call DQ (2026-12-03, after call DP). Call DP: gdn_decode_cuda (every row's reductions, then every row's
# store) no faster than the Triton lean / vtile kernels at any batch size (the pick, CUDA at batch 1-16, swept
# 1.097x vs fla as picked_dl). A warp that stores nothing until its last row has arrived bunches the writes behind
# the reads; PER_ROW=1 reduces and stores each row as it arrives. One GPU, one queue:
#   1. gdn_decode_cuda's GPU points (tests/test_seeds.py -m gpu), PER_ROW among them;
#   2. benchmarks/decode_copy_ceiling.py at batch 1-64: the retained kernels, call DP's best CUDA rows, and PER_ROW=1
#      at R 2-16, LPR 8-32, 1-4 warps per block -> benchmarks/results/decode_copy_ceiling_h200_dq.{md,json};
#   3. benchmarks/decode_bands.py's pick (min gain 1 %) -> dispatch/picked_dq.json and, unless it is picked_dl.json,
#      its contest sweep with fla over the 54 workloads -> contest_decode_picked_dq.md.
# (since the review of 2026-12-03, third session: gpu_env.sh's decode_cuda_pick, the same steps)
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dq END_BY=420 bash scripts/sessions/gpu_session_dq.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_decode_pick_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  C="operators/$DEC/solutions/seeds/gdn_decode_cuda"
  decode_cuda_pick picked_dl \
    "cu4l8w4=$C@LPR=8,WARPS=4" "cu8l8w4=$C@R=8,LPR=8,WARPS=4" "cu8l16w2=$C@R=8,LPR=16,WARPS=2" \
    "cu16l8w4=$C@R=16,LPR=8,WARPS=4" \
    "p4=$C@PER_ROW=1" "p4w4=$C@WARPS=4,PER_ROW=1" "p4l8w4=$C@LPR=8,WARPS=4,PER_ROW=1" "p2w4=$C@R=2,WARPS=4,PER_ROW=1" \
    "p8=$C@R=8,PER_ROW=1" "p8n=$C@R=8,OUT_FROM_OLD=0,PER_ROW=1" "p8w4=$C@R=8,WARPS=4,PER_ROW=1" \
    "p8l8w4=$C@R=8,LPR=8,WARPS=4,PER_ROW=1" "p16=$C@R=16,PER_ROW=1" "p16n=$C@R=16,OUT_FROM_OLD=0,PER_ROW=1" \
    "p16w2=$C@R=16,WARPS=2,PER_ROW=1" "p16l16w2=$C@R=16,LPR=16,WARPS=2,PER_ROW=1" \
    "p16l8w4=$C@R=16,LPR=8,WARPS=4,PER_ROW=1"
) &
finish_session $!
