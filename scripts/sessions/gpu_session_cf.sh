#!/usr/bin/env bash
# Device call CF (queued 2026-12-02 for the next session), in this order:
#   1. GPU tests of the new seed moe_grouped_fp8_q8tw (the retained q8tc with the long calls' GEMM2 at its own warp
#      count and one W2 block scale per K step: call CE's Nsight Compute sections have GEMM2 at 14,107 tokens 871 us
#      at 80 % L1/TEX throughput, its two warp groups each reading the whole intermediate tile per K step; compiled
#      for sm_90 here, GEMM2 at 4 warps 154 registers instead of q8td's 216, benchmarks/results/sm90_resources_moe.md).
#   2. MoE above 4,096 tokens (11,948 and 14,107), side by side: the retained dispatch (q8tc) against q8tw with GEMM2
#      at 4 and 8 warps, at 4 warps with 3 stages, and at 4 warps with the routing kernel at 1 warp (ROUTE_WARPS: call
#      CE, the routing 98 us at 14,107 tokens, L1/TEX 87 %). The fastest that passed both in turn: its GEMM2's Nsight
#      Compute sections, its span anatomy, and its contest sweep if it is not the retained one.
# Usage (carry .whl):  CALL=cf END_BY=560 bash scripts/sessions/gpu_session_cf.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
PRE=$MD/q8rg_m16s4f_q8rt_m64s4f_q8t
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8tw"
  TW=0; last_step_passed && TW=1
  LONG=$(axis_band $MOE seq_len 4097 100000)
  NAMES=()
  [ $TW = 1 ] && NAMES+=(w4 w8 w4s3 w4r1)
  BEST=$(side_by_side $MOE moe_cf_ _long.jsonl "$LONG" "${PRE}%s_80_4096.json" c "${NAMES[@]}")
  echo "=== the band's fastest: $BEST" >> "$L"
  if [ "$BEST" != c ]; then
    step 90 python3 benchmarks/ncu_sections.py --operator $MOE --solution "${PRE}${BEST}_80_4096.json" \
      --workloads 5e8dc11c --kernels gemm2 --name moe_q8t${BEST}_14107_cf
    step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution "${PRE}${BEST}_80_4096.json" \
      --workloads 58a34f27 5e8dc11c --name moe_q8t${BEST}_cf
    contest_sweep $MOE "${PRE}${BEST}_80_4096.json" moe_q8t${BEST}_cf "$P/contest_scratch_cf"
  fi
) &
finish_session $!
