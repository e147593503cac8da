#!/usr/bin/env bash
# Device call QG (prepared 2026-12-07, stop 65). On an H200: call QF's sweeps (h200_sweeps_qf: PA's and QE's prefill
# sweeps with fla, then the MoE side by side with its baselines), each resumable.
# On another card: the long calls' chunked kernels at narrower walk tiles. Above 1,376 tokens (75 % of the prefill
# mean) the dispatch runs wy3h at C 64 / BV 32 / 2 stages up to 16 sequences and C 32 / BV 64 / BV_O 128 above; call QF
# found the one-launch seed 1.41x faster at BV 16 than at BV 32 there (more walk programs for few long sequences). So
# wy3h at BV 16 (4 and 2 walk warps; BV 16 with 8 faults, call BA) and at C 32 + BV 16 against the dispatch
# recurrent_ahead_461_1376_s2bv32 on those 30 workloads, through the harness, interleaved per workload.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qg.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_*_qe.md" \
  "benchmarks/results/contest_*_qf.md"
WY="$PRE_SEEDS/gdn_prefill_chunked_wy3h"
( gpu0_log
  if card_is H200; then
    h200_sweeps_qf
  else
    prefill_long_side_by_side wy3h_long "bv16s2=$WY@BV=16,num_stages=2" \
      "bv16s2h2=$WY@BV=16,num_stages=2,num_warps_h=2" "c32bv16s2=$WY@C=32,BV=16,num_stages=2"
  fi
) &
finish_session $!
