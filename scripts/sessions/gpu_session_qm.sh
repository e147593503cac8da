#!/usr/bin/env bash
# Device call QM (prepared 2026-12-07, stop 66; ~440 s of device time left). On an H200 first the MoE side by side
# with its baselines (QF's fixed name; ~270 s on an H100). On every card then the new seed gdn_prefill_chunked_wy3k
# (wy3h with one prep program per chunk and q/k head doing both of its v-heads: the keys loaded and their three
# products formed once; equal to wy3h bit for bit in the interpreter). Call QH (H100): the prep is 57 of ~220 us at
# 8,192 tokens / 57 sequences, latency-bound (36 % SM, 21 % DRAM, 18.8 % occupancy). Triton 3.9 here: the paired
# prep spills at 4 warps (C 32: 608 stack bytes, C 64: 2,120), none at C 32 / 8 warps (194 registers), 344 bytes at
# C 64 / 8 warps. So: at the dispatch's long leaves' points with 8 prep warps, and C 32 with 4, against
# recurrent_ahead_461_1376_s2bv32 on the 30 workloads above 1,376 tokens through the harness (which checks each
# against the reference), interleaved per workload, under the fixed name qm (table contest_wy3k_long_qm).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qm.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_qf.md" "benchmarks/results/contest_*_qm.md"
WK="$PRE_SEEDS/gdn_prefill_chunked_wy3k"
( gpu0_log
  if card_is H200; then
    moe_side_by_side qf
  fi
  ( CALL=qm; prefill_long_side_by_side wy3k_long "k_c64w8=$WK@BV=32,num_stages=2,num_warps=8" \
    "k_c32w8=$WK@C=32,BV=64,BV_O=128,num_stages=2,num_warps=8" "k_c32w4=$WK@C=32,BV=64,BV_O=128,num_stages=2" )
) &
finish_session $!
