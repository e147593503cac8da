#!/usr/bin/env bash
# Device call QN (prepared 2026-12-07, stop 67): issue 9 is resolved, so on an H200 the sweep issue 7 still waits for
# comes first: call QE's sweep of the walk-ahead prefill dispatch with fla (the kernel to adopt; ~420 s on an H100),
# then the MoE side by side with its baselines (QF's name), then call PA's (4 workloads left), each resumable under its
# fixed name. On another card nothing: call QK measured both side by side on an H100.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qn.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_*_qe.md" \
  "benchmarks/results/contest_*_qf.md"
( gpu0_log
  if card_is H200; then
    qe_sweep_on_h200
    moe_side_by_side qf
    pa_sweep_on_h200
  else
    echo "not an H200 ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)): nothing to do" | tee -a "$L"
  fi
) &
finish_session $!
