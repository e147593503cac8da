#!/usr/bin/env bash
# Device call BW (queued 2026-12-02, after calls BT, BV, BU), in this order:
#   1. MoE, two seeds over the retained q8rt (GPU tests of each first; a seed whose tests fail is left out):
#      - moe_grouped_fp8_q8ex (above 80 tokens): the long calls' GEMMs launched over the tiles that exist (one host
#        sync after the tile table). Call BV's Nsight Compute profile of the 14,107-token call launched GEMM1 over
#        (1,796, 16) and GEMM2 over (1,796, 56) programs at one resident program per SM, ~86 % of them without rows
#        (profiles_v/profile_moe_large_bv.json); call BT's span anatomy has the two GEMMs at 88 % of that span.
#      - moe_grouped_fp8_q8rg (up to 80 tokens): routing and tile table inside GEMM1's launch (GEMM1's programs wait
#        on a flag): call BT's span anatomy at 32-59 tokens has the GPU idle 28-38 us before GEMM1.
#      Side by side with the retained dispatch on both bands, the span anatomy, then the contest sweep of
#      dispatch/q8rg_m16s4f_q8ex_m64s4f_80.json (or q8rt_m16s4f_q8ex_m64s4f_80.json if q8rg's tests fail).
#   2. DSA indexer: dispatch/coop8_b16_acc.json (dsa_indexer_coop at 8 selectors up to batch 16, the retained seed
#      above; call BV side by side: 0.78-0.96 at batch 4-15, 1.10-1.23 at 27-31): contest sweep
#      (profiles_v/contest_scratch_bw2) and the 100-trial replay of the near-tie workloads.
#   3. GDN prefill: the middle band (402-2,284 tokens, the retained dispatch runs wy3f there) with wy3b, side by side
#      (call BU ran out of time before it).
# Usage (carry .whl):  CALL=bw END_BY=560 bash scripts/gpu_session_bw.sh
source "$(dirname "$0")/gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
RET=$MD/q8rt_m16s4f_m64s4f_80.json
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bw.md" "benchmarks/results/span_anatomy_*bw*" \
  "benchmarks/results/indexer_probe"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8ex"
  EX=0; last_step_passed && EX=1
  step 150 python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k "q8rg"
  RG=0; last_step_passed && RG=1
  if [ $EX = 1 ]; then
    NEW=$MD/q8rt_m16s4f_q8ex_m64s4f_80.json; [ $RG = 1 ] && NEW=$MD/q8rg_m16s4f_q8ex_m64s4f_80.json
    LARGE=$(axis_band $MOE seq_len 81 100000)
    evaluate_once "$P/moe_bw_retained_large.jsonl" $MOE $RET "$LARGE"
    evaluate_once "$P/moe_bw_q8ex_large.jsonl" $MOE $NEW "$LARGE"
    if [ $RG = 1 ]; then
      SMALL=$(axis_band $MOE seq_len 1 81)
      evaluate_once "$P/moe_bw_retained_small.jsonl" $MOE $RET "$SMALL"
      evaluate_once "$P/moe_bw_q8rg_small.jsonl" $MOE $NEW "$SMALL"
    fi
    step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution $NEW \
      --workloads 6230e838 eedc63b2 1a4c6ba1 5e8dc11c --name moe_new_bw
    contest_sweep $MOE $NEW moe_new_bw "$P/contest_scratch_bw"
  fi
  I=operators/$IDX/solutions/dispatch/coop8_b16_acc.json
  contest_sweep $IDX $I indexer_coop8b16_bw "$P/contest_scratch_bw2"
  step 200 env PARTS=2 SEED=$I TAG=_coop8b16 bash scripts/indexer_probe.sh
  MID=$(axis_band $GDN total_seq_len 402 2285)
  evaluate_once "$P/prefill_bw_retained_mid.jsonl" $GDN operators/$GDN/solutions/dispatch/wy3f_seqs8_bv64.json "$MID"
  evaluate_once "$P/prefill_bw_wy3b_mid.jsonl" $GDN operators/$GDN/solutions/seeds/gdn_prefill_chunked_wy3b "$MID"
) &
finish_session $!
