#!/usr/bin/env bash
# Device call QE (prepared 2026-12-07, stop 64). Call QD (an H100, 06:00 UTC) timed the dispatch
# recurrent_ahead_461_1376_s2bv32 (the walk-ahead one-launch seed at C 32 + BV 32 + 8 warps to 461 tokens, at BV 32 +
# 8 warps to 1,376; planned from call QC) against recurrent_one_1376_s2bv32 (call PA's, awaiting adoption) on 92 of
# the 100 workloads: 0.0567 vs 0.0603 ms, 1.065x. So:
# on an H200: call PA's adoption sweep resumed (4 workloads left; then benchmarks/adopt_retained.py here), then the
# contest sweep of recurrent_ahead_461_1376_s2bv32 with fla beside it (resumable by a later call with CALL=qe: its
# traces $P/contest_scratch_qe), and the retained dispatch on 49-1,376 tokens beside it;
# on another card: QD's sweep resumed (8 workloads of 8,192 tokens left).
# On every card, then: both one-launch seeds' registers and spills at call QC's four points with the device's Triton
# (3.6; with 3.9 here C 32 + BV 32 + 8 warps is the only spill-free one, in both seeds).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qe.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_*_qe.md" \
  "benchmarks/results/contest_ahead_dispatch_qd.md"
( gpu0_log
  if card_is H200; then
    ( CALL=pa; prefill_sweep_on_h200 fla )
    ( CALL=qe DISPATCH=recurrent_ahead_461_1376_s2bv32; prefill_sweep_on_h200 fla )
  else
    prefill_ahead_side_by_side
  fi
  for seed in gdn_prefill_onelaunch gdn_prefill_onelaunch_pf; do
    step "$(upto 60)" python3 benchmarks/prefill_onelaunch_resources.py --seed "$seed" \
      --points 64,64,64,4 64,32,64,8 32,32,64,8 32,64,64,4 --name "${CALL}_points_${seed#gdn_prefill_}" --out "$OUT"
  done
) &
finish_session $!
