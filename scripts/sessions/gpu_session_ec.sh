#!/usr/bin/env bash
# Device call EC (2026-12-04), after calls DZ / EA / EB: the span anatomy now places each kernel's launch call (host
# start and return, CUPTI runtime/driver records, the GPU records' clock). The retained MoE dispatch at 1 and 7 tokens
# in six processes (calls DZ / EA: 10-22 us gaps before the last launch in some processes), then the fused-combine
# dispatch (q8cf16_16_retained, call EB: its wait moved before the fused GEMM2) at 1 token in three: whether the host
# calls the late launch late, or the launch call itself takes long.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ec END_BY=420 bash scripts/sessions/gpu_session_ec.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  for i in 1 2 3 4 5 6; do
    step "$(left)" python3 benchmarks/span_anatomy.py --operator "$MOE" --solution "operators/$MOE/retained/solution.json" \
      --workloads e05c6c03 b8f4f012 --name "moe_launch_ret${i}_ec"
  done
  for i in 1 2 3; do
    step "$(left)" python3 benchmarks/span_anatomy.py --operator "$MOE" \
      --solution "$MOE_DISPATCH/q8cf16_16_retained.json" --workloads e05c6c03 --name "moe_launch_cf16_${i}_ec"
  done
) &
finish_session $!
