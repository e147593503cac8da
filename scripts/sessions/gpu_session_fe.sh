#!/usr/bin/env bash
# Device call FE (2026-12-04), after call FD: on 959 tokens / 4 sequences (c7a9ecec) the three wy3b kernels alone take
# 0.050 ms at the retained launch options and 0.044 at num_stages 2 / BV 32 (call FD's kernel sweep), yet the official
# latency read 0.070 and 0.116 ms (call FC's contest sweep). The span anatomy of both dispatches on two such
# workloads (kernel offsets, durations, idle gaps; the host side of 20 more calls) tells where the 70 us go.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=fe END_BY=240 bash scripts/sessions/gpu_session_fe.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  for d in recurrent_wy3b_401 recurrent_wy3b_s2_seqs16_bv32_401; do
    step 100 python3 benchmarks/span_anatomy.py --operator "$PRE" --solution "$PRE_DISPATCH/$d.json" \
      --workloads c7a9ecec e7fb8edf --host-calls 20 --name "prefill_${d}_${CALL}"
  done
) &
finish_session $!
