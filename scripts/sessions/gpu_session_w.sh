#!/usr/bin/env bash
# Device call W and its repeats (2026-11-30, after call V): V measured the fewer-launch tables of the indexer and
# DSA attention (attention COMBINE=fused won on 22/23 workloads and became the seed default; indexer SELECT=fused
# lost) and took GDN prefill's reference to 98/100. Every step resumes; rerun with CALL=x, ... and unpack each
# call's archive first (python scripts/unpack_results.py <files_at>/results_<call>.tgz).
# GPU 0: (call w) the MoE seed's GPU points, one of which failed in call V; GDN prefill's torch.compile (the last 19 workloads), then the two GDN prefill seeds on all 100 workloads
#   -> benchmarks/results/profiles_v/prefill_<seed>.jsonl (the band crossover question for a dispatch).
# GPU 1: GDN prefill's reference (the last 2 workloads, ~130 s each), the DSA attention's retained kernel (the new
#   COMBINE=fused default) on its 23 workloads, then the MoE's ROUTE torch / triton table on all 19 workloads
#   (benchmarks/results/moe_route_all_h200.json).
# Usage (carry .whl):  CALL=w END_BY=<limit - 60> bash scripts/sessions/gpu_session_w.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' \
  "$P" 'benchmarks/results/moe_route_all_h200.json'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  [ "$CALL" = w ] && step 200 python3 -m pytest -q -m gpu tests/test_seeds.py -k moe  # call V: one MoE point failed
  SUFFIX=_gpu0 EXTRA="--baselines torch_compile --no-retained" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
  for SEED in gdn_prefill_chunked gdn_prefill_recurrent; do  # the two prefill seeds side by side, all workloads
    evaluate_once "$P/prefill_${SEED}.jsonl" $PRE "operators/$PRE/solutions/seeds/$SEED"
  done ) &
P0=$!
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_${CALL}_gpu1.log"
  SUFFIX=_gpu1 EXTRA="--baselines reference --no-retained" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
  SUFFIX=_gpu1 EXTRA="--baselines" step "$(left)" bash scripts/contest_resume.sh dsa_attention
  step "$(left)" python3 benchmarks/controller_efficiency.py --mode measure --operator $MOE --workloads 0 \
    --fix BLOCK_M=16 BLOCK_N=128 BLOCK_N2=128 COMBINE=gather INTER_DTYPE=fp32 num_warps=4 num_stages=3 \
    --table benchmarks/results/moe_route_all_h200.json
) &
P1=$!
finish_session $P0 $P1
