#!/usr/bin/env bash
# Device call BR (queued 2026-12-02, after call BQ), in this order:
#   1. Call BQ: dsa_attn_heads (dsa_attn_bf16 with its one-launch merge spread over the token's split programs
#      behind a per-token barrier) read 0.741 / 0.768 of dsa_attn_bf16 at 1-2 / 6-8 tokens, side by side; 8 splits
#      0.987 / 0.945. Its merge now also takes more splits than heads (each part a slice of one head's columns):
#      GPU tests, then its contest sweep at the defaults again (the seed's source changed: profiles_v/
#      contest_scratch_br), then on the 1-2-token band (9 workloads; 16-32 programs on 132 SMs at 16 splits,
#      KV-gather 0.05 of the roofline) 32 splits (BK 64 and 32) and 64 splits (BK 32); on the 6-8-token band
#      (14 workloads) BK 32.
# Usage (carry .whl):  CALL=br END_BY=330 bash scripts/sessions/gpu_session_br.sh
source "$(dirname "$0")/../gpu_env.sh" session
AS=operators/$ATT/solutions/seeds
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_br.md"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_seeds.py -k dsa_attn_heads
  if last_step_passed; then
    contest_sweep $ATT $AS/dsa_attn_heads attn_heads_br "$P/contest_scratch_br"
    T12=$(axis_band $ATT num_tokens 1 3)
    for pt in NUM_SPLITS=32 NUM_SPLITS=32,BK=32 NUM_SPLITS=64,BK=32; do
      evaluate_once "$P/attn_br_heads_${pt//[=,]/}_t12.jsonl" $ATT "$AS/dsa_attn_heads@$pt" "$T12"
    done
    evaluate_once "$P/attn_br_heads_BK32_t68.jsonl" $ATT "$AS/dsa_attn_heads@BK=32" "$(axis_band $ATT num_tokens 3 100)"
  fi
) &
finish_session $!
