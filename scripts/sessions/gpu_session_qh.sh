#!/usr/bin/env bash
# Device call QH (prepared 2026-12-07, stop 65). On an H200: call QF's sweeps first (h200_sweeps_qf: PA's and QE's
# prefill sweeps with fla, then the MoE side by side with its baselines), each resumable.
# On every card, then: where the 8,192-token GDN prefill calls' time goes. Calls QE-QG (H100): the 16 workloads of
# 8,192 tokens in 20-57 sequences are 52 % of the dispatch recurrent_ahead_461_1376_s2bv32's summed latency, 0.21-0.26
# ms each at 0.12 of the memory roofline (~30 us of bytes), and neither the one-launch seed (QF) nor narrower walk
# tiles (QG) help. So the span anatomy (each kernel's start, duration and the gap before it, and the host's profile)
# of that dispatch at 8,192 tokens in 20 / 38 / 57 sequences and at 5,709 in 2, then Nsight Compute's sections of
# its kernels at 57 sequences.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qh.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/contest_*_qe.md" \
  "benchmarks/results/contest_*_qf.md"
AHEAD_DISPATCH="$PRE_DISPATCH/recurrent_ahead_461_1376_s2bv32.json"
( gpu0_log
  if card_is H200; then
    h200_sweeps_qf
  fi
  step "$(upto 150)" python3 benchmarks/span_anatomy.py --operator "$PRE" --solution "$AHEAD_DISPATCH" \
    --workloads 546aba8e ced41396 f21736ff d68188c3 --warmup 3 --iterations 20 --host-calls 3 --host-top 25 \
    --name "prefill_long_${CALL}"
  step "$(upto 150)" python3 benchmarks/ncu_sections.py --operator "$PRE" --solution "$AHEAD_DISPATCH" \
    --workloads f21736ff --name "prefill_long_57seqs_${CALL}"
) &
finish_session $!
