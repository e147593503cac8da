#!/usr/bin/env bash
# Device call BT (queued 2026-12-02, after call BS), in this order:
#   1. MoE: the seed moe_grouped_fp8_q8rt, in dispatch/q8rt_m16s4f_m64s4f_80.json (the retained dispatch's two
#      points on q8rt). Up to 1,024 routed pairs its routing and tile table are one launch (call BP's span anatomy
#      of two 32-59-token calls: 20-22 us and 18 us of host gaps before the tile table and GEMM1); longer calls
#      build the tile table as two Triton launches instead of q8's ~25 torch operations (the q8 dispatch at 14,107
#      tokens: 3.86 ms of device time per call against 4.55 ms official, profile_moe_q8_dispatch.json). GPU tests;
#      if they pass, the retained dispatch and the new one side by side on the 16 workloads of up to 80 tokens and
#      on the 3 of 901-14,107, the span anatomy of the new one (two mid-band calls, the 14,107-token call), then its
#      contest sweep (profiles_v/contest_scratch_bt).
#   2. GDN prefill: dispatch/recurrent_wy3f_wy3bc32_2284.json (the retained dispatch with wy3b, bf16 scratch, in its
#      long band: call BH read wy3b 0.697 and wy3b at C 32 0.651 of wy3p's defaults on six long workloads) side by
#      side with the retained dispatch on the workloads of more than 2,284 tokens.
# Then call BV (the DSA indexer seed dsa_indexer_coop) and call BU (that GDN prefill dispatch's full contest sweep,
# about 6 minutes; resumable).
# Usage (carry .whl):  CALL=bt END_BY=540 bash scripts/sessions/gpu_session_bt.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
NEW=$MD/q8rt_m16s4f_m64s4f_80.json
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bt.md" "benchmarks/results/span_anatomy_*bt*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8rt or tile_table"
  if last_step_passed; then
    SMALL=$(axis_band $MOE seq_len 1 81)
    LARGE=$(axis_band $MOE seq_len 81 100000)
    evaluate_once "$P/moe_bt_retained_small.jsonl" $MOE $MD/q8m16s4f_q8m64s4f_80.json "$SMALL"
    evaluate_once "$P/moe_bt_q8rt_small.jsonl" $MOE $NEW "$SMALL"
    evaluate_once "$P/moe_bt_retained_large.jsonl" $MOE $MD/q8m16s4f_q8m64s4f_80.json "$LARGE"
    evaluate_once "$P/moe_bt_q8rt_large.jsonl" $MOE $NEW "$LARGE"
    step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution $NEW \
      --workloads 6230e838 eedc63b2 5e8dc11c --name moe_q8rt_bt
    contest_sweep $MOE $NEW moe_q8rt_bt "$P/contest_scratch_bt"
  fi
  LONG=$(axis_band $GDN total_seq_len 2285 100000)
  evaluate_once "$P/prefill_bt_retained_long.jsonl" $GDN \
    operators/$GDN/solutions/dispatch/recurrent_wy3f_wy3pc32_2284.json "$LONG"
  evaluate_once "$P/prefill_bt_wy3b_long.jsonl" $GDN operators/$GDN/solutions/dispatch/recurrent_wy3f_wy3bc32_2284.json \
    "$LONG"
) &
finish_session $!
