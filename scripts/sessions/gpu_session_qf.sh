#!/usr/bin/env bash
# Device call QF (prepared 2026-12-07, stop 65), for an H200 only (issues 7 and 9 ask for H200 figures side by side in
# one run): call QE's sweep of the GDN prefill dispatch recurrent_ahead_461_1376_s2bv32 with fla resumed (nothing to
# do once it holds all 100 workloads), then the retained FP8 MoE dispatch with the PyTorch reference and torch.compile
# interleaved per workload over all 19 workloads (until now the MoE ratios compare the retained sweep of 2026-12-04
# with baselines swept on 2026-11-30). Resumable under fixed names whatever the call (table
# contest_moe_side_by_side_qf, traces $P/contest_moe_qf). On another card nothing is run.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qf.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_qe.md" "benchmarks/results/contest_*_qf.md"
( gpu0_log
  if card_is H200; then
    ( CALL=qe DISPATCH=recurrent_ahead_461_1376_s2bv32; prefill_sweep_on_h200 fla )
    contest_sweep "$MOE" "operators/$MOE/retained/solution.json" moe_side_by_side_qf "$P/contest_moe_qf" \
      reference torch_compile
  else
    echo "=== not an H200: nothing to do" | tee -a "$L"
  fi
) &
finish_session $!
