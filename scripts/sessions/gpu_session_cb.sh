#!/usr/bin/env bash
# Device call CB (queued 2026-12-02, after call CA), in this order:
#   1. MoE, the band above 4,096 tokens (11,948 and 14,107 tokens), the retained q8td (weights through TMA
#      descriptors, activations gathered, BLOCK_M 64) against taller tiles. Why: call CA's span anatomy at 14,107 tokens
#      has GEMM1 1,028 us (~800 FP8 TFLOP/s) and GEMM2 867 us (~480): at BLOCK_M 64 a 64 x 128 tile loads 24-41 KB per
#      1-2 M MACs, so the GEMMs pull 5.9 / 7.9 TB/s out of L2 (the H200's L2 limit is of that order); at BLOCK_M 128
#      (and GEMM2's BLOCK_N2 256) half as many bytes per MAC. Compiled for sm_90 here: GEMM1 254-255 registers at
#      128 x 128 with 8 warps (wgmma m64n128k32), GEMM2 236 at 128 x 128, 255 at 128 x 256 (m64n256k32), no PTX spills.
#      Points ("g": activations gathered by token, else permuted first and read through a descriptor): g_m128 at 3 / 4
#      stages, m128 at 4, g_m128n256 / m128n256 at 3, g_m64n256 at 4. The fastest that passed both workloads in turn
#      (fastest_in_turn): its span anatomy, then its contest sweep if it is not the retained one.
# Usage (carry .whl):  CALL=cb END_BY=330 bash scripts/sessions/gpu_session_cb.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
PRE=$MD/q8rg_m16s4f_q8rt_m64s4f_q8td
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  LONG=$(axis_band $MOE seq_len 4097 100000)
  NAMES=(g_m128s3fy g_m128s4fy _m128s4fy g_m128n256s3fy _m128n256s3fy g_m64n256s4fy)
  for V in g_m64s4fy "${NAMES[@]}"; do
    evaluate_once "$P/moe_cb_${V}_long.jsonl" $MOE "${PRE}${V}_80_4096.json" "$LONG"
  done
  BEST=$(fastest_in_turn $MOE moe_cb_ _long.jsonl g_m64s4fy "${NAMES[@]}")
  echo "=== the long band's fastest: $BEST" >> "$L"
  step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution "${PRE}${BEST}_80_4096.json" \
    --workloads 58a34f27 5e8dc11c --name moe_q8td${BEST}_cb
  if [ "$BEST" != g_m64s4fy ]; then
    contest_sweep $MOE "${PRE}${BEST}_80_4096.json" moe_q8td${BEST}_cb "$P/contest_scratch_cb"
  fi
) &
finish_session $!
