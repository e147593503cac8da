#!/usr/bin/env bash
# Device call BN (2026-12-02, after calls BM and BG): the bf16 attention seed's contest sweep, then the indexer's fp8
# dot with its accumulation promoted to fp32.
#   1. Call BM: dsa_attn_bf16 at its defaults read 0.810 / 0.838x the retained split-K point's latency at 1-2 / 6-8
#      tokens (all 23 workloads PASSED, side by side): its contest sweep (profiles_v/contest_scratch_bn), for
#      adoption.
#   2. Call BM: dsa_indexer_one at BN 256 / BLOCKS 1 with DOT=fp8 read 0.83x the retained dispatch at 33-45 pages and
#      0.70x at 82-91, but failed one 30 x 91-page workload (one selected score 0.011 off). The new seed
#      dsa_indexer_one_acc promotes the fp8 dot's partial sums to fp32 every ACC products (max_num_imprecise_acc;
#      Triton's sm_90 default never promotes): its GPU tests, then the 59 workloads of 33 pages or more at ACC 32;
#      only if every one PASSED, its contest sweep and the 100-trial near-tie replay.
# Usage (carry .whl):  CALL=bn END_BY=480 bash scripts/sessions/gpu_session_bn.sh
source "$(dirname "$0")/../gpu_env.sh" session
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
ACCSEED=operators/$IDX/solutions/seeds/dsa_indexer_one_acc
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bn.md" benchmarks/results/indexer_probe
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  contest_sweep $ATT operators/$ATT/solutions/seeds/dsa_attn_bf16 attn_bf16_bn "$P/contest_scratch_bn"
  step 120 python3 -m pytest -q -m gpu tests/test_seeds.py -k dsa_indexer_one_acc
  evaluate_once "$P/indexer_bn_acc32.jsonl" $IDX "$ACCSEED" "$(axis_band $IDX max_num_pages 33 1000)"
  passed=$(grep -c '"status": "PASSED"' "$P/indexer_bn_acc32.jsonl" 2>/dev/null)
  echo "=== acc32: ${passed:-0} of 59 PASSED" | tee -a "$L"
  if [ "${passed:-0}" = 59 ]; then
    contest_sweep $IDX "$ACCSEED" indexer_acc_bn "$P/contest_scratch_bn"
    step "$(left)" env PARTS=2 SEED="$ACCSEED" TAG=_acc bash scripts/indexer_probe.sh
  else
    evaluate_once "$P/indexer_bn_acc32_bn128.jsonl" $IDX "$ACCSEED@BN=128" "$(axis_band $IDX max_num_pages 82 1000)"
  fi
) &
finish_session $!
