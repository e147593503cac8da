#!/usr/bin/env bash
# Device call BZ (queued 2026-12-02, after calls BW, BX, BY), in this order:
#   1. MoE, the seed moe_grouped_fp8_q8pe (q8ex with the long calls' GEMMs as persistent programs that stop at the
#      first tile without rows: the exact grid's work without q8ex's host sync): GPU tests; then the long band (901,
#      11,948, 14,107 tokens) side by side: dispatch/q8rg_m16s4f_q8pe_m64s4fy[w8]_80.json (2 / 8 waves) and
#      dispatch/q8rg_m16s4f_q8rt_m64s4f_q8ex_m64s4fy_80_4096.json (call BW's dispatch with q8rt kept at 81-4,096
#      tokens, where q8ex's host sync cost more than its exact grid saved: 0.859 against 0.674 ms at 901; span anatomy:
#      186 us idle before GEMM1 at 14,107 tokens). The contest sweep takes the faster of the two that passed every
#      workload (benchmarks/trace_agreement.py --faster, in turn).
#   2. GDN prefill: contest sweep of dispatch/recurrent_wy3b_401.json (the retained dispatch with wy3b_seqs16_c32
#      from 402 tokens: calls BX / BY, the 19 workloads of 461-2,284 tokens side by side, 0.835 / 0.837 of wy3f there).
#      Resumable (--resume): a sweep cut by the call's limit continues in the next call.
# Usage (carry .whl):  CALL=bz END_BY=360 bash scripts/sessions/gpu_session_bz.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
THREE=$MD/q8rg_m16s4f_q8rt_m64s4f_q8ex_m64s4fy_80_4096.json
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8pe"
  PEOK=0; last_step_passed && PEOK=1
  NEW=$THREE
  if [ $PEOK = 1 ]; then
    LARGE=$(axis_band $MOE seq_len 81 100000)
    evaluate_once "$P/moe_bz_three_large.jsonl" $MOE $THREE "$LARGE"
    BEST=three
    for V in q8pe q8pew8; do  # q8pe at 2 and at 8 waves: the fastest that passed every workload, in turn
      F="$P/moe_bz_${V}_large.jsonl"
      evaluate_once "$F" $MOE "$MD/q8rg_m16s4f_q8pe_m64s4fy${V#q8pe}_80.json" "$LARGE"
      [ -f "$F" ] && [ -f "$P/moe_bz_${BEST}_large.jsonl" ] && \
        [ "$(python3 benchmarks/trace_agreement.py --operator $MOE --a "$P/moe_bz_${BEST}_large.jsonl" --b "$F" \
             --faster)" = b ] && BEST=$V
    done
    [ $BEST != three ] && NEW="$MD/q8rg_m16s4f_q8pe_m64s4fy${BEST#q8pe}_80.json"
  fi
  echo "=== MoE sweep: $NEW" >> "$L"
  contest_sweep $MOE $NEW moe_bz "$P/contest_scratch_bz"
  contest_sweep $GDN operators/$GDN/solutions/dispatch/recurrent_wy3b_401.json prefill_wy3b401_bz \
    "$P/contest_scratch_bz"
) &
finish_session $!
