#!/usr/bin/env bash
# Device call KK (2026-12-06, an H100 expected): does the one-launch GDN prefill seed (gdn_prefill_onelaunch) win any of
# the long band's 8,192-token workloads (16 of the band's 22, more than 16 sequences each: the retained dispatch's C 32
# leaf)? Calls JB-JF measured it only up to 1,377 tokens. The retained dispatch, the seed, the retained dispatch again
# (its drift within the call bounds the ratio), every other 8,192-token workload (8), one process each through
# `kernelopt evaluate`; traces $P/prefill_${CALL}_{retained,one,retained_again}.jsonl. An H100's ratio says whether the
# next H200 sweep should carry a dispatch with the seed there. On an H200 it runs call JD's prefill sweep instead
# (scripts/sessions/gpu_session_jd.sh's step: the one-launch dispatch and the retained kernel beside it), the priority.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=520 bash scripts/sessions/gpu_session_kk.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  prefill_sweep_on_h200 && exit 0
  U=$(prefill_band 8192 8193 | tr ',' '\n' | awk 'NR % 2 == 1' | paste -sd, -)
  echo "=== workloads: $U" >> "$L"
  RET="$PRE_DISPATCH/recurrent_wy3hh_1376_s2bv32.json"
  evaluate_once "$P/prefill_${CALL}_retained.jsonl" "$PRE" "$RET" "$U"
  evaluate_once "$P/prefill_${CALL}_one.jsonl" "$PRE" "$PRE_SEEDS/gdn_prefill_onelaunch" "$U"
  evaluate_once "$P/prefill_${CALL}_retained_again.jsonl" "$PRE" "$RET" "$U"
) &
finish_session $!
