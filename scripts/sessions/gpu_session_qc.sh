#!/usr/bin/env bash
# Device call QC (prepared 2026-12-07, stop 64). Call QB ran on an H100 (05:07 UTC): on 8 workloads of 61-832 tokens
# the one-launch GDN prefill seed's points disagree by size - C 32 wins on the short ones (61:1 1.37x, 116:1 1.13x
# its defaults), BV 32 at 8 warps on the longer ones (525:1 1.22x, 661:3 1.18x), C 32 + BV 32 + 8 warps best over all
# eight (geomean 1.107x); the walk-ahead seed gdn_prefill_onelaunch_pf at 8 warps 1.071x the defaults through the
# harness. So, on every card, through the harness (benchmarks/contest.py --candidates, interleaved per workload) on
# every contest workload the one-launch band of the dispatch serves (49 <= tokens < 1,377: 46 workloads, any prefix
# spread over the sizes): against the seed's defaults, those points and the walk-ahead seed at the two best; its
# traces say which point serves which part of the band (a dispatch composed from them next).
# First, only on an H200: call PA's adoption sweep resumed (4 workloads left), as QB.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qc.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_onelaunch_band_${CALL}.json"
ONE="$PRE_SEEDS/gdn_prefill_onelaunch" AHEAD="$PRE_SEEDS/gdn_prefill_onelaunch_pf"
( gpu0_log
  ( CALL=pa; prefill_sweep_on_h200 fla ) || true  # on an H200 only (status 1 elsewhere)
  band=$(prefill_band 49 1377 | tr , ' ')
  # shellcheck disable=SC2086  # $band: space-separated uuids
  step "$(left)" python3 benchmarks/contest.py --operators "$PRE" --no-baselines --solution "$PRE=$ONE" \
    --candidates "bv32w8=$ONE@BV=32,num_warps=8" "c32bv32w8=$ONE@C=32,BV=32,num_warps=8" "c32=$ONE@C=32" \
    "ahead_bv32w8=$AHEAD@BV=32,num_warps=8" "ahead_c32bv32w8=$AHEAD@C=32,BV=32,num_warps=8" --workloads $band \
    --budget-s 100000 --name "onelaunch_band_${CALL}" --traces "$P/contest_band_${CALL}" --resume
) &
finish_session $!
