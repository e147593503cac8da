#!/usr/bin/env bash
# Device call BM (queued 2026-12-02, after call BL): the DSA indexer dispatch at BN 256, then the attention's moves.
#   Call BL: dsa_indexer_one at BN 256 / BLOCKS 1 read 0.0277 / 0.0286 ms at 33-36 / 38-45 pages against 0.0294 /
#   0.0319 for BN 128 (the retained dispatch's point, same call). dispatch/one_bn256_fl_63.json is the retained
#   dispatch (one_bn128_fl_63.json) with that point below 64 pages.
#   1. Its contest sweep over the 128 workloads (profiles_v/contest_scratch_bm; compare with call BL's sweep by
#      benchmarks/trace_agreement.py: the pass-through rows and the 82-91-page band run the same code), then issue
#      8's 100-trial replay on the near-tie workloads.
#   2. The fp8 tensor-core dot (DOT=fp8, never timed on a GPU) on the 59 workloads of 33 pages or more, for
#      dsa_indexer_one at BN 256 and for dsa_indexer_fl: call AB's Nsight Compute profile put the scoring kernel at
#      33.6 of 60 us at 30 rows x 91 pages (181 registers, 12 % occupancy: the tf32 path holds the 64 x 128 query
#      in fp32), 0.14 of the bandwidth bound.
#   3. Call BJ's attention moves on all 23 workloads (the retained point first: 32 splits, 8 splits, BK 128), then
#      its profiles at 1 and 8 tokens and with the combine as its own launch.
# Usage (carry .whl):  CALL=bm END_BY=540 bash scripts/gpu_session_bm.sh
source "$(dirname "$0")/gpu_env.sh" session
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
DISP=operators/$IDX/solutions/dispatch/one_bn256_fl_63.json
LONG=$(axis_band $IDX max_num_pages 33 1000)
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
ASEED=operators/$ATT/solutions/seeds/dsa_attn_splitk
RET="BK=64,num_warps=16,num_stages=4"
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_indexer_bn256_*" benchmarks/results/indexer_probe
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $IDX "$DISP" indexer_bn256_bm "$P/contest_scratch_bm"
  step 150 env PARTS=2 SEED="$DISP" TAG=_bn256 bash scripts/indexer_probe.sh
  for pt in "dsa_indexer_one@BN=256,BLOCKS=1,DOT=fp8" "dsa_indexer_fl@DOT=fp8"; do
    tag=${pt//[=,@]/_}
    evaluate_once "$P/indexer_bm_${tag}.jsonl" $IDX "operators/$IDX/solutions/seeds/$pt" "$LONG"
  done
  for move in "" NUM_SPLITS=32 NUM_SPLITS=8 "BK=128,num_stages=2"; do
    tag=${move//[=,]/}
    evaluate_once "$P/attn_bm_${tag:-retained}.jsonl" $ATT "$ASEED@$RET${move:+,$move}"
  done
  profile_once attn_t1_bm $ATT "$ASEED@$RET" c35fdc40-baef-5414-b890-f030d92e900a
  profile_once attn_t8_bm $ATT "$ASEED@$RET" c21d2278-5f8f-5ed5-b951-924b0a463b93
  profile_once attn_t8_launch_bm $ATT "$ASEED@$RET,COMBINE=launch" c21d2278-5f8f-5ed5-b951-924b0a463b93
) &
finish_session $!
