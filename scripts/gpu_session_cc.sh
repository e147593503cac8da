#!/usr/bin/env bash
# Device call CC (queued 2026-12-02, after call CB), in this order:
#   1. MoE above 4,096 tokens (11,948 and 14,107): the retained q8td point (activations gathered, BLOCK_M 64, 8 warps,
#      4 stages) against 3 / 5 stages and 4 warps, side by side. Call CB: taller tiles lost (BLOCK_M 128 1.30-1.32,
#      with GEMM2 at BLOCK_N2 256 1.63; GEMM2 alone at BLOCK_N2 256 1.01), so L2 traffic per MAC is not what limits
#      the GEMMs; the fastest that passed both in turn gets a contest sweep if it is not the retained one.
#   2. Evidence for the next step: Nsight Compute sections (speed of light, compute / memory workload, occupancy,
#      warp stalls; benchmarks/ncu_sections.py) of the retained dispatch's kernels at 14,107 tokens (the two GEMMs,
#      the combine, the routing) and at 59 tokens (the 32-80 band: 40 % of the contest mean at 0.69 of the memory
#      roofline).
# Usage (carry .whl):  CALL=cc END_BY=330 bash scripts/gpu_session_cc.sh
source "$(dirname "$0")/gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
PRE=$MD/q8rg_m16s4f_q8rt_m64s4f_q8td
RET=${PRE}g_m64s4fy_80_4096.json
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  LONG=$(axis_band $MOE seq_len 4097 100000)
  NAMES=(g_m64s3fy g_m64s5fy g_m64w4s4fy)
  for V in g_m64s4fy "${NAMES[@]}"; do
    evaluate_once "$P/moe_cc_${V}_long.jsonl" $MOE "${PRE}${V}_80_4096.json" "$LONG"
  done
  BEST=$(fastest_in_turn $MOE moe_cc_ _long.jsonl g_m64s4fy "${NAMES[@]}")
  echo "=== the long band's fastest: $BEST" >> "$L"
  step 150 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$RET" --workloads 5e8dc11c \
    --kernels "gemm|combine|route" --name moe_retained_14107_cc
  step 120 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$RET" --workloads eedc63b2 \
    --name moe_retained_59_cc
  if [ "$BEST" != g_m64s4fy ]; then
    contest_sweep $MOE "${PRE}${BEST}_80_4096.json" moe_q8td${BEST}_cc "$P/contest_scratch_cc"
  fi
) &
finish_session $!
