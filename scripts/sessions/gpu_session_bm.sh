#!/usr/bin/env bash
# Device call BM (queued 2026-12-02, after call BL): the DSA indexer dispatch at BN 256, the bf16 attention seed,
# the indexer's fp8 dot, then the split-K attention's moves and profiles.
#   1. Call BL: dsa_indexer_one at BN 256 / BLOCKS 1 read 0.0277 / 0.0286 ms at 33-36 / 38-45 pages against 0.0294 /
#      0.0319 for BN 128 (the retained dispatch's point, same call). dispatch/one_bn256_fl_63.json is the retained
#      dispatch with that point below 64 pages: its contest sweep (profiles_v/contest_scratch_bm; compare with call
#      BL's by benchmarks/trace_agreement.py: the pass-through rows and the 82-91-page band run the same code), then
#      issue 8's 100-trial replay on the near-tie workloads.
#   2. The new attention seed dsa_attn_bf16 (the split-K seed with bf16 dot operands: the [BK, 512] key tile stays
#      bf16 instead of being staged twice as fp32 per step): its GPU tests (the interpreter cannot check bf16 dots),
#      then on all 23 workloads side by side with the retained point (27-30 us at 1-8 tokens, 0.02-0.15 of the
#      roofline): at its defaults, at the retained point's launch shape, and at BK 128.
#   3. The fp8 tensor-core dot (DOT=fp8, never timed on a GPU) on the indexer's 59 workloads of 33 pages or more, for
#      dsa_indexer_one at BN 256 and for dsa_indexer_fl: call AB's Nsight Compute profile put the scoring kernel at
#      33.6 of 60 us at 30 rows x 91 pages (181 registers, 12 % occupancy: the tf32 path holds the 64 x 128 query in
#      fp32), 0.14 of the bandwidth bound. Then dsa_indexer_one at BN 256 with 8 warps (not the select's 16) on the
#      82-91-page rows, where the one-launch kernel still loses to the two-launch seed.
#   4. Why call BK's cold pass read longer than the official latency: the official timing on the profile's own inputs
#      (trial 0), then the profile again.
#   5. Call BJ's split-K moves (32 and 8 splits, BK 128), then profiles of the retained attention point at 1 and 8
#      tokens and with the combine as its own launch.
# Usage (carry .whl):  CALL=bm END_BY=540 bash scripts/sessions/gpu_session_bm.sh
source "$(dirname "$0")/../gpu_env.sh" session
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
DISP=operators/$IDX/solutions/dispatch/one_bn256_fl_63.json
LONG=$(axis_band $IDX max_num_pages 33 1000)
ONE=operators/$IDX/solutions/seeds/dsa_indexer_one
U4X34=6e9056cc-914e-5d59-a96e-1d9a72176d93
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
ASEEDS=operators/$ATT/solutions/seeds
ASEED=$ASEEDS/dsa_attn_splitk
RET="BK=64,num_warps=16,num_stages=4"
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_indexer_bn256_*" benchmarks/results/indexer_probe
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $IDX "$DISP" indexer_bn256_bm "$P/contest_scratch_bm"
  step 150 env PARTS=2 SEED="$DISP" TAG=_bn256 bash scripts/indexer_probe.sh
  evaluate_once "$P/attn_bm_retained.jsonl" $ATT "$ASEED@$RET"
  step 120 python3 -m pytest -q -m gpu tests/test_seeds.py -k dsa_attn_bf16
  for pt in "" "$RET" "BK=128"; do
    tag=${pt//[=,]/}
    evaluate_once "$P/attn_bm_bf16${tag:+_$tag}.jsonl" $ATT "$ASEEDS/dsa_attn_bf16${pt:+@$pt}"
  done
  for pt in "dsa_indexer_one@BN=256,BLOCKS=1,DOT=fp8" "dsa_indexer_fl@DOT=fp8"; do
    tag=${pt//[=,@]/_}
    evaluate_once "$P/indexer_bm_${tag}.jsonl" $IDX "operators/$IDX/solutions/seeds/$pt" "$LONG"
  done
  evaluate_once "$P/indexer_bm_one_bn256_w8_82.jsonl" $IDX "$ONE@BN=256,BLOCKS=1,num_warps=8" "$(axis_band $IDX \
    max_num_pages 64 1000)"
  # why the first cold pass (call BK: 32.4 us) read longer than the official latency (23.7 us) at 4 x 34 pages:
  # the official timing of the profile's own inputs (trial 0, one trial), then the profile again
  step 60 python3 -m kernelopt.cli.main evaluate operator=$IDX "solution='$ONE'" harness.time_reference=false \
    harness.trials=1 "workloads=[$U4X34]" output=$P/indexer_bm_one_4x34_trial0.jsonl
  profile_once indexer_one_4x34_bm $IDX "$ONE" $U4X34
  for move in NUM_SPLITS=32 NUM_SPLITS=8 "BK=128,num_stages=2"; do
    evaluate_once "$P/attn_bm_${move//[=,]/}.jsonl" $ATT "$ASEED@$RET,$move"
  done
  profile_once attn_t1_bm $ATT "$ASEED@$RET" c35fdc40-baef-5414-b890-f030d92e900a
  profile_once attn_t8_bm $ATT "$ASEED@$RET" c21d2278-5f8f-5ed5-b951-924b0a463b93
  profile_once attn_t8_launch_bm $ATT "$ASEED@$RET,COMBINE=launch" c21d2278-5f8f-5ed5-b951-924b0a463b93
) &
finish_session $!
