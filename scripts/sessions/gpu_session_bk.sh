#!/usr/bin/env bash
# Device call BK (queued 2026-12-01): the one-launch DSA indexer seed dsa_indexer_one.
#   The retained seed dsa_indexer_fl is two launches at long context (33-91 pages, 59 of 128 workloads); call AB's
#   profile put the device time at 21.1 us at 4 x 34 pages against a 44.2 us span in the contest traces: the host
#   issuing the second launch. dsa_indexer_one scores and selects in one launch (each row's last scoring program
#   selects the row in registers at the select's warp count).
#   1. GPU tests: the one-launch seed equals the two-launch radix path id for id; its select alone on adversarial
#      rows; its seed points against the reference through the harness; the profiles' new cold pass (the L2
#      flushed before each call, as the official timing does), which step 3's profile then carries.
#   2. Side by side on all 128 workloads: dsa_indexer_one at its defaults, the retained dsa_indexer_fl, then
#      dsa_indexer_one with 4 warps for the whole kernel and with BN 128 / BLOCKS 1.
#   3. A profile of dsa_indexer_one on call AB's probe workload (4 rows x 34 pages): kernels per call, device time,
#      host gaps.
#   4. The contest sweep of dsa_indexer_one over the 128 workloads, resumable into profiles_v/contest_scratch_bk.
# Usage (carry .whl):  CALL=bk END_BY=540 bash scripts/sessions/gpu_session_bk.sh
source "$(dirname "$0")/../gpu_env.sh" session
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
S=operators/$IDX/solutions/seeds
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_indexer_one_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 200 python3 -m pytest -q -m gpu tests/test_indexer_one.py tests/test_indexer_select.py tests/test_seeds.py \
    -k "one_launch or regs or dsa_indexer_one"
  step 120 python3 -m pytest -q -m gpu tests/harness/test_profiling.py
  evaluate_once "$P/indexer_bk_one.jsonl" $IDX "$S/dsa_indexer_one"
  evaluate_once "$P/indexer_bk_fl.jsonl" $IDX "$S/dsa_indexer_fl"
  evaluate_once "$P/indexer_bk_one_w4.jsonl" $IDX "$S/dsa_indexer_one@num_warps=4"
  evaluate_once "$P/indexer_bk_one_bn128.jsonl" $IDX "$S/dsa_indexer_one@BN=128,BLOCKS=1"
  profile_once indexer_one_4x34 $IDX "$S/dsa_indexer_one" 6e9056cc-914e-5d59-a96e-1d9a72176d93
  contest_sweep $IDX "$S/dsa_indexer_one" indexer_one_bk "$P/contest_scratch_bk"
) &
finish_session $!
