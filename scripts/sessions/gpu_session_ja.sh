#!/usr/bin/env bash
# Device call JA (2026-12-05): GDN prefill in one launch. The seed gdn_prefill_onelaunch runs wy3h's three kernels
# (prep by halves, state walk, parallel output) as the roles of one kernel ordered by epoch flags (its kernel.py says
# why: the official span counts the host's 12-20 us per launch wherever the kernels run shorter).
# 1. side by side through `kernelopt evaluate` on 16 workloads spread over the four bands: the retained dispatch
#    first, the seed at its defaults (C 64, BV 64, preps first), with the walks first (WALK_FIRST: they prep unclaimed
#    chunks themselves), the same at BV 32 (twice the walk programs), the retained dispatch again last (its drift
#    bounds the ratios). No sweep: the per-band picks decide a dispatch first;
# 2. the seed's GPU test (tests/test_gdn_prefill_onelaunch.py; its points in tests/test_seeds.py are left for later).
# The first try (13:30 UTC) ran the test first as the timings' gate: the kernel passed, the test's own counter lookup
# failed (fixed), and the gate kept the timings off; the timings come first now.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ja END_BY=560 bash scripts/sessions/gpu_session_ja.sh
#   SHORT=1: 10 workloads and no BV 32 point (for a call with less device time)
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  uuids=$(prefill_points 6:1 24:1 48:1 61:1 116:1 185:2 341:2 401:4 525:1 661:3 832:4 1377:1 2284:3 3999:13 \
    5709:2 8192:20)
  [ "${SHORT:-0}" = 1 ] && uuids=$(prefill_points 6:1 48:1 116:1 341:2 525:1 832:4 1377:1 2284:3 3999:13 8192:20)
  ONE="$PRE_SEEDS/gdn_prefill_onelaunch"
  evaluate_once "$P/prefill_${CALL}_retained.jsonl" "$PRE" "$PRE_DISPATCH/recurrent_wy3hh_1376_s2bv32.json" "$uuids"
  evaluate_once "$P/prefill_${CALL}_one.jsonl" "$PRE" "$ONE" "$uuids"
  evaluate_once "$P/prefill_${CALL}_one_wf.jsonl" "$PRE" "$ONE@WALK_FIRST=1" "$uuids"
  [ "${SHORT:-0}" = 1 ] || evaluate_once "$P/prefill_${CALL}_one_wf_bv32.jsonl" "$PRE" "$ONE@WALK_FIRST=1,BV=32" "$uuids"
  evaluate_once "$P/prefill_${CALL}_retained_again.jsonl" "$PRE" "$PRE_DISPATCH/recurrent_wy3hh_1376_s2bv32.json" "$uuids"
  step "$(left)" python3 -m pytest -q -m gpu tests/test_gdn_prefill_onelaunch.py
) &
finish_session $!
