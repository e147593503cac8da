#!/usr/bin/env bash
# Device call QD (prepared 2026-12-07, stop 64). Call QC (an H100, 05:57 UTC) timed five points of the one-launch
# GDN prefill seeds on all 46 workloads of its band (49-1,376 tokens); benchmarks/dispatch_plan.py planned the
# walk-ahead seed at C 32 + BV 32 + 8 warps up to 461 tokens and at BV 32 + 8 warps above: 0.0313 vs 0.0383 ms for the
# one-launch defaults there. Composed as solutions/dispatch/recurrent_ahead_461_1376_s2bv32.json. So, on every card,
# through the harness on all 100 workloads (a prefix spreads over the sizes): that dispatch against the one-launch
# dispatch awaiting adoption (recurrent_one_1376_s2bv32), interleaved per workload.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qd.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( gpu0_log
  prefill_ahead_side_by_side
) &
finish_session $!
