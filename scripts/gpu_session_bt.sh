#!/usr/bin/env bash
# Device call BT (queued 2026-12-02, after call BS), in this order:
#   1. MoE: the seed moe_grouped_fp8_q8rt (q8 with routing and tile table in one launch: call BP's span anatomy of
#      two 32-59-token calls put 20-22 us and 18 us of host gaps before the tile table and GEMM1). GPU tests; if
#      they pass, the retained dispatch and dispatch/q8rtm16s4f_q8m64s4f_80.json side by side on the 16 workloads
#      of up to 80 tokens, the span anatomy of the new one on call BP's two workloads, then its contest sweep
#      (profiles_v/contest_scratch_bt; the large band runs the retained code).
#   2. DSA indexer: dispatch/acc_blocks2_63.json (the retained one-launch kernel, 2 spans per program above 63
#      pages: 0.970 / 0.971 of the retained point at 82-91 pages in calls BP / BQ): contest sweep, then the
#      100-trial replay on the near-tie workloads (its two longest run the BLOCKS 2 point).
#   3. GDN prefill: dispatch/recurrent_wy3f_wy3bc32_2284.json (the retained dispatch with wy3b, bf16 scratch, in
#      its long band: call BH read wy3b 0.697 and wy3b at C 32 0.651 of wy3p's defaults on six long workloads)
#      side by side with the retained dispatch on the workloads of more than 2,284 tokens.
# Then call BV (the DSA indexer seed dsa_indexer_coop) and call BU (that GDN prefill dispatch's full contest sweep,
# about 6 minutes; resumable).
# Usage (carry .whl):  CALL=bt END_BY=540 bash scripts/gpu_session_bt.sh
source "$(dirname "$0")/gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bt.md" "benchmarks/results/span_anatomy_*bt*" \
  "benchmarks/results/indexer_probe"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k q8rt
  if tail -1 "$L" | grep -q "rc=0"; then
    SMALL=$(axis_band $MOE seq_len 1 81)
    evaluate_once "$P/moe_bt_retained_small.jsonl" $MOE $MD/q8m16s4f_q8m64s4f_80.json "$SMALL"
    evaluate_once "$P/moe_bt_q8rt_small.jsonl" $MOE $MD/q8rtm16s4f_q8m64s4f_80.json "$SMALL"
    step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution $MD/q8rtm16s4f_q8m64s4f_80.json \
      --workloads 6230e838 eedc63b2 --name moe_q8rt_bt
    contest_sweep $MOE $MD/q8rtm16s4f_q8m64s4f_80.json moe_q8rt_bt "$P/contest_scratch_bt"
  fi
  contest_sweep $IDX operators/$IDX/solutions/dispatch/acc_blocks2_63.json indexer_blocks2_bt "$P/contest_scratch_bt"
  step 120 env PARTS=2 SEED=operators/$IDX/solutions/dispatch/acc_blocks2_63.json TAG=_acc_blocks2 \
    bash scripts/indexer_probe.sh
  LONG=$(axis_band $GDN total_seq_len 2285 100000)
  evaluate_once "$P/prefill_bt_retained_long.jsonl" $GDN \
    operators/$GDN/solutions/dispatch/recurrent_wy3f_wy3pc32_2284.json "$LONG"
  evaluate_once "$P/prefill_bt_wy3b_long.jsonl" $GDN operators/$GDN/solutions/dispatch/recurrent_wy3f_wy3bc32_2284.json \
    "$LONG"
) &
finish_session $!
