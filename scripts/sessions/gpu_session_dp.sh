#!/usr/bin/env bash
# Device call DP (2026-12-03, after call DO): the CUDA decode seed gdn_decode_cuda (kernel.cu, compiled with NVRTC
# through CuPy) against the retained dispatch's Triton kernels. One GPU, one queue:
#   1. its GPU points (tests/test_seeds.py -m gpu: numerics against the fp32 reference at batch 1-64);
#   2. benchmarks/decode_copy_ceiling.py at every batch size of the workloads (1-64): the retained dispatch's
#      kernels (vtile BV 8 / 8 warps, lean BV 4, lean BV 8 / 16 from the new state) beside gdn_decode_cuda at rows
#      per warp R 1-16, lanes per row LPR 8-32, 1-8 warps per block, output from the old / new state. What is
#      aimed at: the 0.3-0.45 us per call the Triton seeds spend above a tile copy at batch 1-8 (call DL)
#      -> benchmarks/results/decode_copy_ceiling_h200_dp.{md,json};
#   3. benchmarks/decode_bands.py: the fastest checked row per batch size (min gain 1 %) -> dispatch/picked_dp.json;
#      unless it is the retained picked_dl.json again, its contest sweep with fla over the 54 workloads
#      -> contest_decode_picked_dp.md (adopted only if its ratio to fla beats picked_dl's 1.097x).
# (since the review of 2026-12-03, third session: gpu_env.sh's decode_cuda_pick, the same steps)
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dp END_BY=420 bash scripts/sessions/gpu_session_dp.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_decode_pick_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  C="operators/$DEC/solutions/seeds/gdn_decode_cuda"
  decode_cuda_pick picked_dl \
    "cu4=$C" "cu4l8=$C@LPR=8" "cu4l16=$C@LPR=16" "cu4l8w4=$C@LPR=8,WARPS=4" "cu4w4=$C@WARPS=4" \
    "cu2l16=$C@R=2,LPR=16" "cu2=$C@R=2" "cu2w4=$C@R=2,WARPS=4" "cu1=$C@R=1" "cu1w4=$C@R=1,WARPS=4" \
    "cu8=$C@R=8" "cu8l8w4=$C@R=8,LPR=8,WARPS=4" "cu8w4n=$C@R=8,WARPS=4,OUT_FROM_OLD=0" "cu8l16w2=$C@R=8,LPR=16,WARPS=2" \
    "cu16l8w4=$C@R=16,LPR=8,WARPS=4" "cu16w2n=$C@R=16,WARPS=2,OUT_FROM_OLD=0" "cu4n=$C@OUT_FROM_OLD=0"
) &
finish_session $!
