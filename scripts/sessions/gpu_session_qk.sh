#!/usr/bin/env bash
# Device call QK (prepared 2026-12-07, stop 66). On an H200: call QF's sweeps (h200_sweeps_qf: PA's and QE's prefill
# sweeps with fla, then the MoE side by side with its baselines), each resumable. The H200 has not come in three
# stops (calls QA-QJ all H100s), so on another card: issue 9's owed measurement there, the retained FP8 MoE dispatch
# with the PyTorch reference and torch.compile interleaved per workload over all 19 workloads in one run (table
# contest_moe_side_by_side_h100_qk, traces $P/contest_moe_h100_qk), then issue 7's: the walk-ahead prefill dispatch
# (recurrent_ahead_461_1376_s2bv32, to adopt) with fla over all 100 workloads (table
# contest_prefill_ahead_fla_h100_qk, traces $P/contest_prefill_ahead_h100_qk); each under a fixed name that any later
# call on that card resumes.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qk.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_*_qe.md" \
  "benchmarks/results/contest_*_qf.md" "benchmarks/results/contest_*_qk.md"
( gpu0_log
  if card_is H200; then
    h200_sweeps_qf
  else
    moe_side_by_side h100_qk
    contest_sweep "$PRE" "$PRE_DISPATCH/recurrent_ahead_461_1376_s2bv32.json" prefill_ahead_fla_h100_qk \
      "$P/contest_prefill_ahead_h100_qk" fla
  fi
) &
finish_session $!
