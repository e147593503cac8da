#!/usr/bin/env bash
# Device call FB (2026-12-04), after call FA (benchmarks/results/gdn_prefill_kernel_sweep_h200_fa_*.md): the state
# walk at num_stages 2 (the next chunk's loads pipelined) took 0.092 against 0.135 ms at C 32 / BV 64 on 8,192 tokens /
# 20 sequences, and at C 64 / BV 32 0.179 against the retained C 64 / BV 64's 0.288 ms on 5,709 tokens / 2 sequences;
# the prep and output kernels do not change with num_stages. Here the retained dispatch and two dispatches of the same
# seed points at num_stages 2 (above 16 sequences C 32 / BV 64 / BV_O 128; up to 16, C 64 / BV 32, or C 32 / BV 32 /
# BV_O 128) side by side on eight long workloads (the retained one first and again last), then the contest sweep of
# the fastest, resumable (name prefill_<pick>_fb).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=fb END_BY=580 bash scripts/sessions/gpu_session_fb.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  uuids=$(prefill_points 5709:2 2107:1 2284:3 3028:5 3999:13 8192:20 8192:57 8192:37)
  prefill_pick_sweep "$uuids" recurrent_wy3b_401 recurrent_wy3b_s2_seqs16_bv32_401 \
    recurrent_wy3b_s2_seqs16_c32bv32_401
) &
finish_session $!
