#!/usr/bin/env bash
# Device call AQ (prepared 2026-12-01 for the next session): the three-kernel GDN prefill seed.
#   0. GPU tests: tests/test_gdn_prefill_wy3.py and the seed's GPU points (tests/test_seeds.py -k wy3).
#   1. The 41 workloads of >= 461 tokens (the retained dispatch's WY band), side by side: gdn_prefill_chunked_wy3 at
#      its defaults, the WY seed at its defaults (the retained band's kernel), then wy3 at BV 64 / BV_O 64 and at
#      BV 16 (more programs in the serial walk, which no longer holds the output tiles).
#   2. Profiles (torch.profiler + Nsight Compute) of wy3 and WY on the 8,192-token / 20-sequence workload, where
#      fla's kernels take 190 us of device time (call Z) and the WY path ~3.4x that.
#   Before them, MoE: `benchmarks/moe_gemm1_sweep.py --tokens 14107` (the q8 GEMM1 alone over tile shapes and
#   register caps: 254 registers / 12.5 % occupancy at the retained point, call AJ; does maxnreg 128 or 168 pay?).
# Usage (carry .whl):  CALL=aq END_BY=<limit - 60> bash scripts/sessions/gpu_session_aq.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" "$P" 'benchmarks/results/moe_gemm1_sweep_*'
S=operators/$PRE/solutions/seeds
LONG=$(prefill_band 461 1000000)
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_gdn_prefill_wy3.py tests/test_seeds.py -k wy3
  step 180 python3 benchmarks/moe_gemm1_sweep.py --tokens 14107
  evaluate_once "$P/prefill_aq_wy3.jsonl" $PRE "$S/gdn_prefill_chunked_wy3" "$LONG"
  evaluate_once "$P/prefill_aq_wy.jsonl" $PRE "$S/gdn_prefill_chunked_wy" "$LONG"
  evaluate_once "$P/prefill_aq_wy3_bv64.jsonl" $PRE "$S/gdn_prefill_chunked_wy3@BV=64" "$LONG"
  evaluate_once "$P/prefill_aq_wy3_bv16.jsonl" $PRE "$S/gdn_prefill_chunked_wy3@BV=16" "$LONG"
  profile_once wy3_prefill $PRE "$S/gdn_prefill_chunked_wy3" 546aba8e-e39a-590a-8949-b2a4b5e09890
  profile_once wy_prefill $PRE "$S/gdn_prefill_chunked_wy" 546aba8e-e39a-590a-8949-b2a4b5e09890
) &
finish_session $!
