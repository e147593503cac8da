#!/usr/bin/env bash
# Device call PA (prepared 2026-12-06, stop 60). On an H200: call OA's prefill sweeps (prefill_fla_sweeps: the retained
# GDN prefill dispatch and fla side by side on 13 spread workloads, then the one-launch dispatch's sweep with fla beside
# it, the sweep to adopt with `benchmarks/adopt_retained.py ... --with-baseline fla`, and the retained dispatch on
# 49-1,376 tokens). On any other card (call OA1 already gave the H100's side by side: 12.46x) the GPU checks this stop
# could not run: the MoE seed moe_grouped_fp8_q8gl after its Gluon limits were made refusals (calls OA2 / OA4 found
# BLOCK_M 32 failing to compile and BLOCK_N 64 / fewer K blocks than ring buffers giving wrong outputs), then the
# device ceilings through harness.timing.median_call_ms (never run on a GPU), the GPU suite's files not run since
# stop 58's guard (profiling, device random inputs, input generation).
# Added in stop 61, at most 75 s: benchmarks/prefill_recurrent_prefetch.py, the token-recurrent prefill kernel (the
# retained dispatch's shortest band, ~0.5 us a token) with its inputs prefetched 2-3 tokens ahead against the seed,
# bit-identical per layout - on an H200 after the quick side by side with fla (issue 7's missing figure comes first),
# elsewhere first.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=560 bash scripts/sessions/gpu_session_pa.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( gpu0_log
  prefetch() { step "$(upto 75)" python3 benchmarks/prefill_recurrent_prefetch.py --name "$CALL" --out "$OUT"; }
  if card_is H200; then prefill_fla_quick; prefetch; prefill_sweep_on_h200 fla; exit 0; fi
  prefetch
  pending_gpu_checks
) &
finish_session $!
