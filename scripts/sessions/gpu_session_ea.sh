#!/usr/bin/env bash
# Device call EA (2026-12-04), after call DZ: the retained MoE dispatch's 1-token span is 74 us in some processes and
# 94-96 us in others, its three kernels identical (52.7 / 17.2 / 1.7 us): the whole difference is a 21-22 us gap
# before the last launch (_combine_kernel), the same in most of a process's calls. Whether it follows the host's
# launch path: span anatomy at 1 token, eight processes, alternately with the solution's fast launcher
# (KERNELOPT_FASTLAUNCH=1, as timed) and Triton's JIT launch path (=0), then two pinned to one CPU core (taskset -c 3).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ea END_BY=400 bash scripts/sessions/gpu_session_ea.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  anatomy() { step "$(left)" "$@" python3 benchmarks/span_anatomy.py --operator "$MOE" \
    --solution "operators/$MOE/retained/solution.json" --workloads e05c6c03 --host-calls 10 --name "$NAME"; }
  for i in 1 2 3 4; do
    NAME=moe_1tok_fast${i}_ea anatomy env KERNELOPT_FASTLAUNCH=1
    NAME=moe_1tok_jit${i}_ea anatomy env KERNELOPT_FASTLAUNCH=0
  done
  for i in 1 2; do NAME=moe_1tok_pin${i}_ea anatomy taskset -c 3; done
) &
finish_session $!
