#!/usr/bin/env bash
# Device call BL (2026-12-02, after call BK): the DSA indexer dispatch, then the attention's first moves.
#   Call BK, side by side with the retained dsa_indexer_fl on all 128 workloads: dsa_indexer_one at BN 128 /
#   BLOCKS 1 took 0.64x of its time at 33-36 pages and 0.67x at 38-45, but 1.09x at 82-91 (16 warps for the whole
#   kernel there). dispatch/one_bn128_fl_63.json runs it up to 63 pages and dsa_indexer_fl above.
#   1. The dispatch's contest sweep over the 128 workloads (profiles_v/contest_scratch_bl), then issue 8's 100-trial
#      replay on the near-tie workloads (33-36 pages and the two longest).
#   2. dsa_indexer_one's other tilings on the 59 workloads of 33 pages or more: BN 256 / BLOCKS 1, BN 128 / BLOCKS 2,
#      BN 128 / BLOCKS 1 at 3 stages (fewer, larger scoring programs at the select's warp count).
#   3. Call BJ's attention moves on all 23 workloads (the retained point first), then its 8-token profile.
# Usage (carry .whl):  CALL=bl END_BY=520 bash scripts/sessions/gpu_session_bl.sh
source "$(dirname "$0")/../gpu_env.sh" session
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
S=operators/$IDX/solutions/seeds
DISP=operators/$IDX/solutions/dispatch/one_bn128_fl_63.json
LONG=$(axis_band $IDX max_num_pages 33 1000)
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
ASEED=operators/$ATT/solutions/seeds/dsa_attn_splitk
RET="BK=64,num_warps=16,num_stages=4"
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_indexer_disp_*" benchmarks/results/indexer_probe
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $IDX "$DISP" indexer_disp_bl "$P/contest_scratch_bl"
  step 150 env PARTS=2 SEED="$DISP" TAG=_disp bash scripts/indexer_probe.sh
  for pt in "BN=256,BLOCKS=1" "BN=128,BLOCKS=2" "BN=128,BLOCKS=1,num_stages=3"; do
    evaluate_once "$P/indexer_bl_one_${pt//[=,]/}.jsonl" $IDX "$S/dsa_indexer_one@$pt" "$LONG"
  done
  for move in "" NUM_SPLITS=32 NUM_SPLITS=8 "BK=128,num_stages=2"; do
    tag=${move//[=,]/}
    evaluate_once "$P/attn_bl_${tag:-retained}.jsonl" $ATT "$ASEED@$RET${move:+,$move}"
  done
  profile_once attn_t8_bl $ATT "$ASEED@$RET" c21d2278-5f8f-5ed5-b951-924b0a463b93
) &
finish_session $!
