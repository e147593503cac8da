#!/usr/bin/env bash
# Device call BS (queued 2026-12-02, after call BR): call BR read dsa_attn_heads at 64 splits (BK 32) 0.696 of its
# defaults on the 1-2-token band; dispatch/heads_s64_s16_2.json is that point up to 2 tokens and the defaults
# above: its contest sweep (profiles_v/contest_scratch_bs).
# Usage (carry .whl):  CALL=bs END_BY=70 bash scripts/sessions/gpu_session_bs.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bs.md"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $ATT operators/$ATT/solutions/dispatch/heads_s64_s16_2.json attn_heads_bs "$P/contest_scratch_bs"
) &
finish_session $!
