#!/usr/bin/env bash
# Device call OA (2026-12-06, stop 59): the GDN prefill sweep of the one-launch dispatch ($DISPATCH, default
# recurrent_one_1376_s2bv32) with fla **side by side** (benchmarks/contest.py interleaves the candidates per
# workload), on whatever card comes, then the retained dispatch on 49 <= tokens < 1,377 (where the two differ; outside
# that band they run the same code). The prefill "vs fla" ratio of the retained table (75.99x) compared traces of
# separate runs and is stale (call ND: fla took 0.86-0.88 ms a call on an H100, not the ~8.9 ms of its 2026-11-29/30
# traces); this gives one measured in one run. On an H200 the sweep is also the one to adopt (gpu_session_jd.sh);
# on another card (whose traces cannot join the H200 tables) the retained dispatch itself is swept beside fla instead.
# First (a short call still brings it back): the retained dispatch and fla side by side on 13 workloads spread over
# the sizes (every 8th by total_seq_len, one- and multi-sequence), table contest_prefill_fla_quick_<call>.md.
# Resumable: a later call with the same CALL and the unpacked traces goes on where this one stopped.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=560 bash scripts/sessions/gpu_session_oa.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( gpu0_log
  prefill_fla_sweeps
) &
finish_session $!
