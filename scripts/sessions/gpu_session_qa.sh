#!/usr/bin/env bash
# Device call QA (prepared 2026-12-06, stop 61). On an H200, first: the one-launch GDN prefill dispatch's sweep
# (recurrent_one_1376_s2bv32) with fla beside it, resumed in call PA's folder ($P/contest_scratch_pa: 96 of 100
# workloads done, the 4 left are of 8,192 tokens, ~40 s), then the retained dispatch on 49-1,376 tokens (where the
# two differ) into $P/prefill_pa_retained.jsonl, and Nsight Compute's sections of the one-launch kernel at 61, 134
# and 401 tokens. Then, on this machine, with all 100 PASSED:
#   python benchmarks/adopt_retained.py --operator gdn_prefill_qk4_v8_d128_k_last \
#     --from benchmarks/results/profiles_v/contest_scratch_pa \
#     --solution operators/gdn_prefill_qk4_v8_d128_k_last/solutions/dispatch/recurrent_one_1376_s2bv32.json \
#     --with-baseline fla --tag <tag> --why "..."
# On every card, then: benchmarks/prefill_onelaunch_resources.py with the device's Triton, and the GPU checks still
# owed (pending_gpu_checks: q8gl's Gluon GEMMs, median_call_ms's ceilings, three suite files).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qa.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md"
( gpu0_log
  if card_is H200; then
    ( CALL=pa; prefill_sweep_on_h200 fla )
    # where the one-launch kernel's ~26 us floor at 49-134 tokens goes (PA2: 26-30 us flat from 49 to 134 tokens, the
    # recurrent kernel 26.5 us at 48): Nsight Compute's sections, warp stalls included, at 61 / 134 tokens (one
    # sequence) and 401 tokens (four)
    step "$(upto 150)" python3 benchmarks/ncu_sections.py --operator "$PRE" \
      --solution "$PRE_DISPATCH/recurrent_one_1376_s2bv32.json" --workloads 6b2797e9 8362ab94 a105e775 \
      --kernels onelaunch --name "onelaunch_small_${CALL}"
  fi
  # the one-launch kernel's registers and spills per point with the device's own Triton (3.6; 976 bytes a thread at the
  # dispatched point with Triton 3.9 here)
  step "$(upto 100)" python3 benchmarks/prefill_onelaunch_resources.py --name "$CALL" --out "$OUT"
  pending_gpu_checks
) &
finish_session $!
