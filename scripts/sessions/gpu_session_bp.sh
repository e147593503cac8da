#!/usr/bin/env bash
# Device call BP (queued 2026-12-02, after call BO), in this order:
#   1. Call BG: moe_grouped_fp8_q8 at BLOCK_M 16 with 4 pipeline stages read 0.938x the retained small-band point on
#      three 32-80-token workloads. dispatch/q8m16s4f_q8m64s4f_80.json is the retained dispatch with that point up
#      to 80 tokens: its contest sweep (profiles_v/contest_scratch_bp; compare with the retained traces by
#      benchmarks/trace_agreement.py: the large band runs the same code).
#   2. The profile's cold pass now also issues flush and call back to back, the GPU never idle between calls
#      (cold_b2b_*): its GPU test, then call BK/BM's question again: dsa_indexer_one at 4 x 34 pages read 34.9 us
#      cold (synchronized, ~0.9 ms of host time per call under the profiler) against 23.5 us official.
#   3. benchmarks/indexer_parts.py: the retained indexer's one launch against its scoring alone and its select
#      alone, on one workload per long band (the largest batch): which part holds the 25-50 us.
#      benchmarks/span_anatomy.py: each kernel's start, duration and the idle gap before it inside the official
#      span (the timer's own records), for the MoE mid band (call BG: ~90 us of each call not device time) and the
#      retained indexer at 4 x 34 and 30 x 91 pages.
#   4. One move each for the two new retained DSA kernels, side by side with their contest traces of call BN:
#      dsa_indexer_one_acc at BN 128, 2 spans per program and 3 stages (the 59 workloads of 33 pages or more);
#      dsa_attn_bf16 at 4 warps and at 3 stages (all 23 workloads).
#   5. Profiles (torch.profiler and Nsight Compute) of the retained DSA indexer (dsa_indexer_one_acc) at 30 x 91 and
#      4 x 34 pages, of the retained attention (dsa_attn_bf16) at 8 and 1 tokens (at 8 also with the split merge as
#      its own launch: the one program per token that merges 16 splits x 16 heads x 512 fp32 partials, 512 KB, is
#      the suspect for the flat 22-25 us), and of the MoE mid band again
#      (call BG: ~90 us of each 417-472 us call was not device time).
# Usage (carry .whl):  CALL=bp END_BY=540 bash scripts/sessions/gpu_session_bp.sh
source "$(dirname "$0")/../gpu_env.sh" session
MOE=moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
ISEEDS=operators/$IDX/solutions/seeds
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bp.md" "benchmarks/results/indexer_parts_*" \
  "benchmarks/results/span_anatomy_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $MOE operators/$MOE/solutions/dispatch/q8m16s4f_q8m64s4f_80.json moe_s4_bp "$P/contest_scratch_bp"
  step 120 python3 -m pytest -q -m gpu tests/harness/test_profiling.py
  step 90 python3 benchmarks/indexer_parts.py
  step 90 python3 benchmarks/span_anatomy.py --operator $MOE --solution \
    operators/$MOE/solutions/dispatch/q8m16f_q8m64s4f_80.json --workloads 6230e838 eedc63b2 --name moe_bp
  step 60 python3 benchmarks/span_anatomy.py --operator $IDX --solution "$ISEEDS/dsa_indexer_one_acc" \
    --workloads 6e9056cc 7fb5f7cd --name indexer_bp
  profile_once indexer_one_4x34_bp $IDX "$ISEEDS/dsa_indexer_one" 6e9056cc-914e-5d59-a96e-1d9a72176d93
  for pt in BN=128 BLOCKS=2 num_stages=3; do
    evaluate_once "$P/indexer_bp_acc_${pt//=/}.jsonl" $IDX "$ISEEDS/dsa_indexer_one_acc@$pt" \
      "$(axis_band $IDX max_num_pages 33 1000)"
  done
  for pt in num_warps=4 num_stages=3; do
    evaluate_once "$P/attn_bp_bf16_${pt//=/}.jsonl" $ATT "operators/$ATT/solutions/seeds/dsa_attn_bf16@$pt"
  done
  profile_once indexer_acc_30x91_bp $IDX "$ISEEDS/dsa_indexer_one_acc" 7fb5f7cd-166f-5342-b333-bdfadb3328c8
  profile_once attn_bf16_t8_bp $ATT operators/$ATT/solutions/seeds/dsa_attn_bf16 c21d2278-5f8f-5ed5-b951-924b0a463b93
  profile_once attn_bf16_t8_launch_bp $ATT "operators/$ATT/solutions/seeds/dsa_attn_bf16@COMBINE=launch" \
    c21d2278-5f8f-5ed5-b951-924b0a463b93
  profile_once moe_mid_bp $MOE operators/$MOE/solutions/dispatch/q8m16f_q8m64s4f_80.json \
    6230e838-67ca-41dd-a9d6-6f36b7676c6b
  profile_once indexer_acc_4x34_bp $IDX "$ISEEDS/dsa_indexer_one_acc" 6e9056cc-914e-5d59-a96e-1d9a72176d93
  profile_once attn_bf16_t1_bp $ATT operators/$ATT/solutions/seeds/dsa_attn_bf16 c35fdc40-baef-5414-b890-f030d92e900a
) &
finish_session $!
