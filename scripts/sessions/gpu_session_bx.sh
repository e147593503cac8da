#!/usr/bin/env bash
# Device call BX (queued 2026-12-02, after call BW), in this order:
#   1. DSA indexer: dispatch/coop8_b16_acc.json (dsa_indexer_coop at 8 selectors up to batch 16, the retained seed
#      above; call BV side by side: 0.78-0.96 at batch 4-15, 1.10-1.23 at 27-31): contest sweep
#      (profiles_v/contest_scratch_bx) and the 100-trial replay of the near-tie workloads.
#   2. GDN prefill: the middle band (402-2,284 tokens, the retained dispatch runs wy3f there) with wy3b, side by side
#      (call BU ran out of time before it).
#   3. With what is left: the indexer dispatch acc_blocks2_63.json's sweep (call BV's was cut after 4 workloads).
# Usage (carry .whl):  CALL=bx END_BY=560 bash scripts/sessions/gpu_session_bx.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/indexer_probe"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  I=operators/$IDX/solutions/dispatch/coop8_b16_acc.json
  contest_sweep $IDX $I indexer_coop8b16_bx "$P/contest_scratch_bx"
  step 200 env PARTS=2 SEED=$I TAG=_coop8b16 bash scripts/indexer_probe.sh
  MID=$(axis_band $GDN total_seq_len 402 2285)
  evaluate_once "$P/prefill_bx_retained_mid.jsonl" $GDN operators/$GDN/solutions/dispatch/wy3f_seqs8_bv64.json "$MID"
  evaluate_once "$P/prefill_bx_wy3b_mid.jsonl" $GDN operators/$GDN/solutions/seeds/gdn_prefill_chunked_wy3b "$MID"
  contest_sweep $IDX operators/$IDX/solutions/dispatch/acc_blocks2_63.json indexer_blocks2_bx "$P/contest_scratch_bv2"
) &
finish_session $!
