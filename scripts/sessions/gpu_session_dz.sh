#!/usr/bin/env bash
# Device call DZ (2026-12-04), after call DY: the retained MoE dispatch's 1-token call read 76.8-116.0 us across six
# evaluations in one call (each `kernelopt evaluate` a new process: fresh inputs and allocations; the routing is
# structure, fixed per workload). Here its span anatomy at 1 and 7 tokens (e05c6c03, b8f4f012), four times, each a
# new process: which activity's duration or gap moves between processes (and the host side of 10 calls each).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=dz END_BY=420 bash scripts/sessions/gpu_session_dz.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  for i in 1 2 3 4; do
    step "$(left)" python3 benchmarks/span_anatomy.py --operator "$MOE" --solution "operators/$MOE/retained/solution.json" \
      --workloads e05c6c03 b8f4f012 --host-calls 10 --name "moe_short_dz$i"
  done
) &
finish_session $!
