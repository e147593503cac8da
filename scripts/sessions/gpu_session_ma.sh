#!/usr/bin/env bash
# Device call MA (2026-12-06, stop 57): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200); on any
# other card two checks owed by stop 56: (1) the campaign's ceilings measurement as the executor now does it (commit
# addca1a: ProcessExecutor.measure_ceilings starts the child on the first GPU lane and the parent reads its stdout
# JSON; call LB ran the earlier version), a short rmsnorm_h4096 campaign with an empty ceilings cache, summarised by
# benchmarks/campaign_summary.py; (2) the GPU seed points calls LA-LF did not reach (GPU_K below), bounded by END_BY.
# Usage (carry .whl_eval and .whl_camp):  WHEELS=.whl_eval CALL=<call> END_BY=560 bash scripts/sessions/gpu_session_ma.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/campaign_ceilings_${CALL}_*"
GPU_K=${GPU_K:-"(wy3h or wy3p or wy3v or onelaunch or recurrent or gemm_tiled or moe or rmsnorm_rowwise) and not fused_add"}
( h200_sweep_first && exit 0
  export KERNELOPT_CEILINGS_DIR="$OUT/ceilings_cache"
  step 150 python3 -m kernelopt.cli.main optimize operator=rmsnorm_h4096 operator.workload_sample=3 \
    controller.max_candidates=2 controller.max_rounds=1 controller.wall_clock_s=110 campaign.name="ceilings_${CALL}"
  step 40 python3 benchmarks/campaign_summary.py rmsnorm_h4096 --name "campaign_ceilings_${CALL}_h100" \
    --command "kernelopt optimize operator=rmsnorm_h4096 ... campaign.name=ceilings_${CALL} (scripts/sessions/gpu_session_ma.sh)"
  unset KERNELOPT_CEILINGS_DIR
  step "$(left)" python3 -m pytest -v -m gpu -p no:cacheprovider --timeout 300 -rs --durations=30 \
    --junitxml="$OUT/gpu_suite_${CALL}_seeds.xml" -k "$GPU_K" tests/test_seeds.py
) &
finish_session $!
