#!/usr/bin/env bash
# Device call CA (queued 2026-12-02, after call BZ), in this order:
#   1. MoE, the seed moe_grouped_fp8_q8pe (q8ex's exact-grid work without its host sync: the long calls' GEMMs as
#      persistent programs that stop at the first tile without rows; call BZ: its outputs passed on the H200, its
#      test's interpreter-only launch check failed there and is fixed): GPU tests; the long band (901, 11,948,
#      14,107 tokens) side by side, the retained dispatch (q8rt to 4,096 tokens, q8ex above: call BW's span anatomy
#      has 186 us idle before GEMM1 at 14,107 tokens while the host waits for the tile count) against
#      dispatch/q8rg_m16s4f_q8pe_m64s4fy[w8]_80.json (2 / 8 waves); span anatomy of the faster; contest sweep of the
#      fastest if it is not the retained one.
#   2. GDN prefill: call BZ's contest sweep of dispatch/recurrent_wy3b_401.json resumed (78 of 100 workloads done,
#      profiles_v/contest_scratch_bz).
# Usage (carry .whl):  CALL=ca END_BY=560 bash scripts/gpu_session_ca.sh
source "$(dirname "$0")/gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
RET=$MD/q8rg_m16s4f_q8rt_m64s4f_q8ex_m64s4fy_80_4096.json
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8pe"
  if last_step_passed; then
    LARGE=$(axis_band $MOE seq_len 81 100000)
    evaluate_once "$P/moe_ca_retained_large.jsonl" $MOE $RET "$LARGE"
    for V in q8pe q8pew8; do  # 2 and 8 waves
      evaluate_once "$P/moe_ca_${V}_large.jsonl" $MOE "$MD/q8rg_m16s4f_q8pe_m64s4fy${V#q8pe}_80.json" "$LARGE"
    done
    BEST=$(fastest_in_turn $MOE moe_ca_ _large.jsonl retained q8pe q8pew8)
    echo "=== the long band's fastest: $BEST" >> "$L"
    if [ $BEST != retained ]; then
      NEW="$MD/q8rg_m16s4f_q8pe_m64s4fy${BEST#q8pe}_80.json"
      step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution $NEW --workloads 1a4c6ba1 5e8dc11c \
        --name moe_q8pe_ca
      contest_sweep $MOE $NEW moe_q8pe_ca "$P/contest_scratch_ca"
    fi
  fi
  contest_sweep $GDN operators/$GDN/solutions/dispatch/recurrent_wy3b_401.json prefill_wy3b401_ca \
    "$P/contest_scratch_bz"
) &
finish_session $!
