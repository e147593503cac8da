#!/usr/bin/env bash
# Device call QF (prepared 2026-12-07, stop 65).
# On an H200 (issues 7 and 9 ask for H200 figures side by side in one run), each step resumable by any later call:
# call PA's adoption sweep resumed (4 workloads left), call QE's sweep of the GDN prefill dispatch
# recurrent_ahead_461_1376_s2bv32 with fla (CALL=qe), then the retained FP8 MoE dispatch with the PyTorch reference and
# torch.compile interleaved per workload over all 19 workloads (until now the MoE ratios compare the retained sweep of
# 2026-12-04 with baselines swept on 2026-11-30; table contest_moe_side_by_side_qf, traces $P/contest_moe_qf).
# On another card: the longest calls. Above 1,376 tokens (30 workloads, 75 % of the prefill mean) every dispatch runs
# the wy3hh chunked kernels; the one-launch seeds lost there at their spilling defaults (call JA), but calls QC-QE found
# points that do not spill (C 32 + BV 32 + 8 warps, Triton 3.6 and 3.9) and win 1.15-1.22x below 1,377. So the
# walk-ahead seed at those points and at narrower walk tiles (more walk programs for few long sequences) against the
# dispatch recurrent_ahead_461_1376_s2bv32 on those workloads, through the harness, interleaved per workload.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qf.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_*_qe.md" \
  "benchmarks/results/contest_*_qf.md"
AHEAD="$PRE_SEEDS/gdn_prefill_onelaunch_pf"
( gpu0_log
  if card_is H200; then
    h200_sweeps_qf
  else
    prefill_long_side_by_side onelaunch_long "bv32w8=$AHEAD@BV=32,num_warps=8" \
      "c32bv32w8=$AHEAD@C=32,BV=32,num_warps=8" "bv16w4=$AHEAD@BV=16" "c32bv16w4=$AHEAD@C=32,BV=16"
  fi
) &
finish_session $!
