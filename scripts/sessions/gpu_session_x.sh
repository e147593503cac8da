#!/usr/bin/env bash
# Device call X (2026-11-30, after call W): W measured the MoE's ROUTE=triton 1.25-8.1x faster than ROUTE=torch on
# 17 of 19 workloads (equal on the two 12k-14k-token ones), so ROUTE=triton became the seed default; its contest
# traces of the old default moved under superseded/. GPU 0: GDN prefill's torch.compile (the last 6 workloads).
# GPU 1: the MoE seed's GPU points (the BLOCK_M=128/BLOCK_N2=256 point now at num_stages=2: at 3 it needed
# 264 KB of shared memory, over the H200's 227 KB), the MoE retained kernel (new default) on its 19 workloads,
# then the two GDN prefill seeds on all 100 workloads -> benchmarks/results/profiles_v/prefill_<seed>.jsonl.
# Usage (carry .whl):  CALL=x END_BY=<limit - 60> bash scripts/sessions/gpu_session_x.sh; unpack with scripts/unpack_results.py
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' "$P"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  SUFFIX=_gpu0 EXTRA="--baselines torch_compile --no-retained" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
) &
P0=$!
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_${CALL}_gpu1.log"
  step 100 python3 -m pytest -q -m gpu tests/test_seeds.py -k moe
  SUFFIX=_gpu1 EXTRA="--baselines" step "$(left)" bash scripts/contest_resume.sh moe
  for SEED in gdn_prefill_chunked gdn_prefill_recurrent; do  # the two prefill seeds side by side, all workloads
    evaluate_once "$P/prefill_${SEED}.jsonl" $PRE "operators/$PRE/solutions/seeds/$SEED"
  done
) &
P1=$!
finish_session $P0 $P1
