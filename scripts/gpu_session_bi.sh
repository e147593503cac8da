#!/usr/bin/env bash
# Device call BI (queued 2026-12-01, after call BF): the GDN prefill long band split by sequence count.
#   Call BF put wy3p at C 32 (prep 4 warps, state walk BV 64 / 4 warps, output BV_O 128 / 4 warps) at 0.35-0.37 ms
#   on 8,192 tokens with 20-57 sequences, against 0.46 for wy3p's defaults in call BE, but 0.80 against 0.53 with 2
#   sequences (and 0.268 against 0.251 with 13). dispatch/recurrent_wy3f_wy3pc32_2284.json is the retained dispatch
#   (recurrent_wy3f_wy3p_2284.json) with its long band split by dispatch/wy3p_seqs16_c32.json: the defaults for up
#   to 16 sequences, C 32 for 17 or more (16 of the 22 long workloads have 20 or more).
#   1. Side by side on the 22 workloads of 2,857-8,192 tokens: the new dispatch, then the retained one.
#   2. The new dispatch's contest sweep over all 100 workloads, resumable into profiles_v/contest_scratch_bi (the
#      next call resumes it with the same command if this one runs out).
# Usage (carry .whl):  CALL=bi END_BY=540 bash scripts/gpu_session_bi.sh
source "$(dirname "$0")/gpu_env.sh" session
D=$PRE_DISPATCH
LONG=$(prefill_band 2285 8193)
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_prefill_wy3pc32_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/prefill_bi_wy3pc32_long.jsonl" $PRE "$D/recurrent_wy3f_wy3pc32_2284.json" "$LONG"
  evaluate_once "$P/prefill_bi_retained_long.jsonl" $PRE "$D/recurrent_wy3f_wy3p_2284.json" "$LONG"
  contest_sweep $PRE "$D/recurrent_wy3f_wy3pc32_2284.json" prefill_wy3pc32_bi "$P/contest_scratch_bi"
) &
finish_session $!
