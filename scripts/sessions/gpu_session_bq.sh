#!/usr/bin/env bash
# Device call BQ (queued 2026-12-02, after calls BP and BH), in this order:
#   1. The attention seed dsa_attn_heads: dsa_attn_bf16 with its one-launch merge spread over a token's split
#      programs behind a per-token barrier (each merges its own heads), aimed at call BP's profile at 8 tokens:
#      the fused launch 21.4 us against 10.1 us for the split alone (the token's last split program merged all
#      512 KB of partials by itself). GPU tests first (the barrier runs only there); if they fail, its timings are
#      skipped. Then its contest sweep (profiles_v/contest_scratch_bq), the retained dsa_attn_bf16 on all 23
#      workloads side by side, and two moves (the barrier launch not cooperative; 8 splits, two heads each).
#   2. benchmarks/indexer_parts.py again, now on the CUPTI timer (call BP's CUDA-event run read 74.5 us for a one
#      launch the contest traces time at 28.7 us: the host's launch time).
#   3. Call BP: dsa_indexer_one_acc at BLOCKS 2 read 0.970 of the retained point at 82-91 pages where 3 stages read
#      1.03-1.04 everywhere: both again on that band's 20 workloads, side by side.
#   4. A profile of dsa_attn_heads at 8 tokens.
# Usage (carry .whl):  CALL=bq END_BY=540 bash scripts/sessions/gpu_session_bq.sh
source "$(dirname "$0")/../gpu_env.sh" session
AS=operators/$ATT/solutions/seeds
ISEEDS=operators/$IDX/solutions/seeds
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bq.md" "benchmarks/results/indexer_parts_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_seeds.py -k dsa_attn_heads
  if last_step_passed; then
    contest_sweep $ATT $AS/dsa_attn_heads attn_heads_bq "$P/contest_scratch_bq"
    evaluate_once "$P/attn_bq_bf16.jsonl" $ATT $AS/dsa_attn_bf16
    evaluate_once "$P/attn_bq_heads_coop0.jsonl" $ATT "$AS/dsa_attn_heads@COOP=0"
    evaluate_once "$P/attn_bq_heads_s8.jsonl" $ATT "$AS/dsa_attn_heads@NUM_SPLITS=8"
  fi
  step 90 python3 benchmarks/indexer_parts.py --name bq
  B82=$(axis_band $IDX max_num_pages 82 1000)
  evaluate_once "$P/indexer_bq_acc_82.jsonl" $IDX "$ISEEDS/dsa_indexer_one_acc" "$B82"
  evaluate_once "$P/indexer_bq_acc_blocks2_82.jsonl" $IDX "$ISEEDS/dsa_indexer_one_acc@BLOCKS=2" "$B82"
  profile_once attn_heads_t8_bq $ATT $AS/dsa_attn_heads c21d2278-5f8f-5ed5-b951-924b0a463b93
) &
finish_session $!
