#!/usr/bin/env bash
# Device call CC (queued 2026-12-02, after call CB), in this order:
#   1. GPU tests of the new seed moe_grouped_fp8_q8tc (the retained q8td point with the exact grid's tile count read
#      as one copy of the tile table: call CB's span anatomy has 65-160 us of idle GPU around q8ex's count_nonzero
#      launches and GEMM1 starting 320-520 us into the span at 11,948-14,107 tokens).
#   2. MoE above 80 tokens (901, 11,948, 14,107), side by side: the retained dispatch (q8td gathered, BLOCK_M 64,
#      8 warps, 4 stages above 4,096) against q8td at 3 / 5 stages and 4 warps (call CB: taller tiles lost, 1.12-1.63x,
#      so L2 bytes per MAC are not the limit), q8tc above 4,096 and q8tc from 81 tokens (does the cheaper sync let
#      the exact grid win at 901 tokens? q8ex there: 0.859 vs q8rt 0.674 ms in call BW). The fastest that passed
#      every workload in turn gets a span anatomy and a contest sweep if it is not the retained one.
#   3. Evidence for the next step: Nsight Compute sections (speed of light, compute / memory workload, occupancy,
#      warp stalls; benchmarks/ncu_sections.py) of the retained dispatch's kernels at 14,107 tokens (the two GEMMs,
#      the combine, the routing) and at 59 tokens (the 32-80 band: 40 % of the contest mean at 0.69 of the memory
#      roofline); with the time left, the same for the retained DSA indexer (91 pages) and GDN decode (batch 64).
# Usage (carry .whl):  CALL=cc END_BY=680 bash scripts/sessions/gpu_session_cc.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
PRE=$MD/q8rg_m16s4f_q8rt_m64s4f_q8td
RET=${PRE}g_m64s4fy_80_4096.json
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8tc"
  TC=0; last_step_passed && TC=1
  LARGE=$(axis_band $MOE seq_len 81 100000)
  declare -A FILE=([retained]=$RET [s3]=${PRE}g_m64s3fy_80_4096.json [s5]=${PRE}g_m64s5fy_80_4096.json
                   [w4]=${PRE}g_m64w4s4fy_80_4096.json [tc]=$MD/q8rg_m16s4f_q8rt_m64s4f_q8tc_80_4096.json
                   [tc80]=$MD/q8rg_m16s4f_q8tc_80.json)
  NAMES=(s3 s5 w4)
  [ $TC = 1 ] && NAMES+=(tc tc80)
  for V in retained "${NAMES[@]}"; do
    evaluate_once "$P/moe_cc_${V}_large.jsonl" $MOE "${FILE[$V]}" "$LARGE"
  done
  BEST=$(fastest_in_turn $MOE moe_cc_ _large.jsonl retained "${NAMES[@]}")
  echo "=== the band's fastest: $BEST" >> "$L"
  step 150 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$RET" --workloads 5e8dc11c \
    --kernels "gemm|combine|route" --name moe_retained_14107_cc
  step 120 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$RET" --workloads eedc63b2 \
    --name moe_retained_59_cc
  if [ "$BEST" != retained ]; then
    step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution "${FILE[$BEST]}" \
      --workloads 1a4c6ba1 58a34f27 5e8dc11c --name moe_${BEST}_cc
    contest_sweep $MOE "${FILE[$BEST]}" moe_${BEST}_cc "$P/contest_scratch_cc"
  fi
  # evidence for the other open targets while time is left: the retained DSA indexer at 91 pages (0.0481 ms band),
  # the retained GDN decode at batch 64 (1.04x fla)
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $IDX \
    --solution operators/$IDX/solutions/dispatch/coop8_b16_acc.json --workloads 794cc736 --name indexer_retained_91_cc
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $DECODE \
    --solution operators/$DECODE/solutions/dispatch/bv8_w8_w1_8.json --workloads 40179013 --name decode_retained_64_cc
) &
finish_session $!
