#!/usr/bin/env bash
# Device call QJ (prepared 2026-12-07, stop 65). On an H200: call QF's sweeps first (h200_sweeps_qf: PA's and QE's
# prefill sweeps with fla, then the MoE side by side with its baselines), each resumable.
# On every card, then the new seed gdn_prefill_chunked_wy3o (wy3h with the output's inter-chunk term formed by the
# state walk: the per-chunk states, 82 MB written and read back at 8,192 tokens / C 32, are never stored; O_inter is
# 33.6 MB; equal to wy3h bit for bit in the interpreter). Calls QH-QI (H100): the 8,192-token calls are 52 % of the
# prefill dispatch's summed latency, the walk and output at 60 % of DRAM throughput moving ~320 MB where ~95 MB is
# needed. So: its GPU tests (against the reference and wy3h), then, if they passed, at the dispatch's two long leaves'
# points (C 64 / BV 32 up to 16 sequences, C 32 / BV 64 / BV_O 128 above; 2 stages), with 4 and 8 walk warps (Triton
# 3.9 here: the C 32 walk spills 584 bytes at 4 warps, none at 8), against recurrent_ahead_461_1376_s2bv32 on the 30
# workloads above 1,376 tokens through the harness, interleaved per workload; then both designs' compiled resources
# with the device's Triton.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qj.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_*_qe.md" \
  "benchmarks/results/contest_*_qf.md" "benchmarks/results/contest_*_qj.md"
WO="$PRE_SEEDS/gdn_prefill_chunked_wy3o"
( gpu0_log
  if card_is H200; then
    h200_sweeps_qf
  fi
  step "$(upto 240)" python3 -m pytest -q -m gpu tests/test_gdn_prefill_wy3h_rewrites.py tests/test_seeds.py -k wy3o
  if last_step_passed; then
    # under call QJ's name whatever the call: a later call resumes it (table contest_wy3o_long_qj)
    ( CALL=qj; prefill_long_side_by_side wy3o_long "o_c64=$WO@BV=32,num_stages=2" \
      "o_c32=$WO@C=32,BV_O=128,num_stages=2" "o_c64w8=$WO@BV=32,num_stages=2,num_warps_h=8" \
      "o_c32w8=$WO@C=32,BV_O=128,num_stages=2,num_warps_h=8" )
  fi
  step "$(upto 60)" python3 benchmarks/prefill_walk_resources.py --name "$CALL" --out "$OUT"
) &
finish_session $!
