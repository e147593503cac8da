#!/usr/bin/env bash
# Device call CA (queued 2026-12-02, after call BZ), in this order:
#   1. MoE long band (901, 11,948, 14,107 tokens), two new seeds over the retained q8ex (GPU tests of each first; a
#      seed whose tests fail is left out):
#      - moe_grouped_fp8_q8pe: q8ex's exact-grid work without its host sync (the long calls' GEMMs as persistent
#        programs that stop at the first tile without rows; call BW's span anatomy has 186 us idle before GEMM1 at
#        14,107 tokens while the host waits for the tile count). Call BZ: its outputs passed on the H200, its test's
#        interpreter-only launch check failed there and is fixed. At 2 / 8 waves, from 81 tokens.
#      - moe_grouped_fp8_q8td: the long calls' GEMMs loading weights (and GEMM2 its intermediate) through tensor
#        descriptors (TMA), GEMM1's activations permuted into the tiles' row order first and read so too: compiled
#        for sm_90 here (benchmarks/sm90_resources.py), GEMM2 at its large point 118 registers per thread instead of
#        q8's 255, GEMM1 154 instead of 255 (three programs per SM at BLOCK_N 64 / 4 warps, the "n64" point); call
#        BW: GEMM2 879 us, GEMM1 1,672 us at 14,107 tokens. Above 4,096 tokens; "g": the activations gathered;
#        "p2": from 81 tokens, both GEMMs persistent over the bound grid (q8pe's scheme: no host sync), 2 per SM.
#      Side by side with the retained dispatch; the fastest that passed every workload in turn (fastest_in_turn),
#      its span anatomy and contest sweep if it is not the retained one.
#   2. GDN prefill: call BZ's contest sweep of dispatch/recurrent_wy3b_401.json resumed (78 of 100 workloads done,
#      profiles_v/contest_scratch_bz).
# Usage (carry .whl):  CALL=ca END_BY=560 bash scripts/sessions/gpu_session_ca.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
RET=$MD/q8rg_m16s4f_q8rt_m64s4f_q8ex_m64s4fy_80_4096.json
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8pe"
  PE=0; last_step_passed && PE=1
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8td"
  TD=0; last_step_passed && TD=1
  LARGE=$(axis_band $MOE seq_len 81 100000)
  declare -A FILE=([retained]=$RET [q8pe]=$MD/q8rg_m16s4f_q8pe_m64s4fy_80.json
                   [q8pew8]=$MD/q8rg_m16s4f_q8pe_m64s4fyw8_80.json
                   [q8td]=$MD/q8rg_m16s4f_q8rt_m64s4f_q8td_m64s4fy_80_4096.json
                   [q8tdg]=$MD/q8rg_m16s4f_q8rt_m64s4f_q8tdg_m64s4fy_80_4096.json
                   [q8tdn64]=$MD/q8rg_m16s4f_q8rt_m64s4f_q8td_m64n64w4s3fy_80_4096.json
                   [q8tdp2]=$MD/q8rg_m16s4f_q8tdp2_m64s4fy_80.json)
  NAMES=()
  [ $TD = 1 ] && NAMES+=(q8td q8tdn64 q8tdg q8tdp2)
  [ $PE = 1 ] && NAMES+=(q8pe q8pew8)
  if [ ${#NAMES[@]} -gt 0 ]; then
    for V in retained "${NAMES[@]}"; do
      evaluate_once "$P/moe_ca_${V}_large.jsonl" $MOE "${FILE[$V]}" "$LARGE"
    done
    BEST=$(fastest_in_turn $MOE moe_ca_ _large.jsonl retained "${NAMES[@]}")
    echo "=== the long band's fastest: $BEST" >> "$L"
    if [ "$BEST" != retained ]; then
      step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution "${FILE[$BEST]}" \
        --workloads 1a4c6ba1 58a34f27 5e8dc11c --name moe_${BEST}_ca
      contest_sweep $MOE "${FILE[$BEST]}" moe_${BEST}_ca "$P/contest_scratch_ca"
    fi
  fi
  contest_sweep $GDN operators/$GDN/solutions/dispatch/recurrent_wy3b_401.json prefill_wy3b401_ca \
    "$P/contest_scratch_bz"
) &
finish_session $!
