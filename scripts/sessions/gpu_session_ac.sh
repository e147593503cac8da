#!/usr/bin/env bash
# Device call AC and its repeats (2026-12-01, after call AB). One GPU, one queue in turn; every step resumes or is
# skipped once its output exists; rerun with CALL=ad, ... and unpack each call's archive first
# (python scripts/unpack_results.py <files_at>/results_<call>.tgz).
#   1. The contest sweep of the new MoE retained kernel, the seed at BLOCK_M=32, INTER_DTYPE=bf16 (call AB:
#      1.0025 vs 1.8055 ms mean over the 19 workloads, faster on every band; the old retained traces are in
#      traces_contest_h200/<moe>/superseded/). Baselines are already traced there and are skipped.
#   2. The contest sweep of the new GDN prefill retained kernel, the dispatch recurrent <= 401 tokens, the two-kernel
#      WY seed above (benchmarks/results/dispatch_plan_gdn_prefill_ab_h200.md: 1.862x mean per-workload speedup
#      over the WY seed alone, which itself read 0.2097 vs 0.3468 ms mean for the previous dispatch).
#   3. The MoE sub-space with the bf16 intermediate (BLOCK_M x BLOCK_N x num_warps; BLOCK_N2=128, num_stages=3,
#      gather combine, Triton routing) on 7 spread workloads, judged now with the definition's own tolerances
#      (benchmarks/controller_efficiency.py used the harness default 1e-2 before 2026-12-01: that, not shared
#      memory, is why every BLOCK_M 64/128 point "failed" in call Y), resumed point by point.
#   4. The fp32 sub-space's 11 BLOCK_M 64/128 points again (--retry-failed) under those tolerances.
# Usage (carry .whl):  CALL=ac END_BY=<limit - 60> bash scripts/sessions/gpu_session_ac.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
T=benchmarks/results/traces_contest_h200
keep_packed "results_${CALL}" "$T/$MOE" "$T/$PRE" 'benchmarks/results/contest_*_h200_resumed*' \
  'benchmarks/results/controller_space_moe_*h200.json'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" bash scripts/contest_resume.sh moe gdn_prefill
  measure_space $MOE benchmarks/results/controller_space_moe_bf16_h200.json \
    --fix COMBINE=gather INTER_DTYPE=bf16 BLOCK_N2=128 num_stages=3 ROUTE=triton
  measure_space $MOE benchmarks/results/controller_space_moe_h200.json \
    --fix COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=triton --retry-failed
) &
finish_session $!
