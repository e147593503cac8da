#!/usr/bin/env bash
# Device call BI (queued 2026-12-01, after call BF): the GDN prefill long band split by sequence count.
#   Call BF put wy3p at C 32 (prep 4 warps, state walk BV 64 / 4 warps, output BV_O 128 / 4 warps) at 0.35-0.37 ms
#   on 8,192 tokens with 20-57 sequences, against 0.46 for wy3p's defaults in call BE, but 0.80 against 0.53 with 2
#   sequences (and 0.268 against 0.251 with 13). dispatch/recurrent_wy3f_wy3pc32_2284.json is the retained dispatch
#   (recurrent_wy3f_wy3p_2284.json) with its long band split by dispatch/wy3p_seqs16_c32.json: the defaults for up
#   to 16 sequences, C 32 for 17 or more (16 of the 22 long workloads have 20 or more).
#   1. Its contest sweep over all 100 workloads first (call BF's took 7 minutes: every workload's reference output
#      is computed for the correctness check, 2.4 s a call at 8,192 tokens), resumable into
#      profiles_v/contest_scratch_bi. Compared with call BF's sweep by `benchmarks/trace_agreement.py`: on the long
#      band two calls of the same code agreed within 0.7 % per workload (calls AY and BD).
#   2. Then side by side on six long workloads (2 to 57 sequences): the new dispatch, then the retained one.
# Usage (carry .whl):  CALL=bi END_BY=540 bash scripts/sessions/gpu_session_bi.sh
source "$(dirname "$0")/../gpu_env.sh" session
D=$PRE_DISPATCH
EDGE6=$(prefill_points 3028:5 5709:2 3999:13 8192:20 8192:35 8192:57)
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_prefill_wy3pc32_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $PRE "$D/recurrent_wy3f_wy3pc32_2284.json" prefill_wy3pc32_bi "$P/contest_scratch_bi"
  evaluate_once "$P/prefill_bi_wy3pc32_edge6.jsonl" $PRE "$D/recurrent_wy3f_wy3pc32_2284.json" "$EDGE6"
  evaluate_once "$P/prefill_bi_retained_edge6.jsonl" $PRE "$D/recurrent_wy3f_wy3p_2284.json" "$EDGE6"
) &
finish_session $!
