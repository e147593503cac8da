#!/usr/bin/env bash
# Device call Y and its repeats (prepared 2026-11-30 after call X, for the next session). Every step resumes or
# is skipped once its output exists; rerun with CALL=z, ... and unpack each call's archive first
# (python scripts/unpack_results.py <files_at>/results_<call>.tgz).
# GPU 0: GDN prefill's retained kernel and fla on the last 2 workloads (8,192 tokens in 48 and 56 sequences),
#   then, side by side in one call, the recurrent seed, the chunked seed and the band dispatch
#   operators/gdn_prefill_qk4_v8_d128_k_last/solutions/dispatch/recurrent_chunked_224.json on all 100 workloads
#   -> benchmarks/results/profiles_v/prefill_y_{recurrent,chunked,dispatch_224}.jsonl; then
#   `python benchmarks/dispatch_plan.py` on the three. By the separate-call sweeps the chunked seed alone takes
#   the mean from 0.408 to 0.326 ms and the dispatch adds ~1 % (the planner declines it: needs > 2 %), while it
#   is 1.7x faster on the 27 calls of <= 49 tokens. The winner becomes the contest's retained kernel
#   (contest_resume.sh's gdn_prefill entry points at the recurrent seed today).
# GPU 1: the MoE seed's sub-space COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=triton (25
#   points: BLOCK_M x BLOCK_N x num_warps, 7 workloads) -> controller_space_moe_h200.json (the BLOCK_M band
#   question for the 3.5k-row experts at seq_len 14,107, and a measured space for issue 5), then the gemm seed's
#   184-point sub-space -> controller_space_gemm184_h200.json.
# Usage (carry .whl):  CALL=y END_BY=<limit - 60> bash scripts/sessions/gpu_session_y.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' "$P" \
  'benchmarks/results/controller_space_moe_h200.json' 'benchmarks/results/controller_space_gemm184_h200.json'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  SUFFIX=_gpu0 EXTRA="--baselines fla" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
  for S in seeds/gdn_prefill_recurrent:recurrent seeds/gdn_prefill_chunked:chunked \
           dispatch/recurrent_chunked_224.json:dispatch_224; do
    evaluate_once "$P/prefill_y_${S##*:}.jsonl" $PRE "operators/$PRE/solutions/${S%%:*}"
  done ) &
P0=$!
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_${CALL}_gpu1.log"
  measure_space $MOE benchmarks/results/controller_space_moe_h200.json \
    --fix COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=triton
  measure_space gemm_n4096_k4096 benchmarks/results/controller_space_gemm184_h200.json \
    --fix GROUP_M=8 num_stages=4 BLOCK_K=64
) &
P1=$!
finish_session $P0 $P1
