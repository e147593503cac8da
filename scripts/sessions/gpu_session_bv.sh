#!/usr/bin/env bash
# Device call BV (queued 2026-12-02): the DSA indexer seed dsa_indexer_coop (dsa_indexer_one_acc with each row's
# radix select shared by the last R of its scoring programs: call BQ put the select at 14.6 of 28.7 us at
# 30 x 33 pages and 26.6 of 54.5 us at 30 x 82, one program per row). GPU tests first (the spins run only there);
# if they pass, on the 59 workloads of 33 pages or more side by side: the retained dsa_indexer_one_acc, the seed at
# its defaults (4 selectors), 8 and 2 selectors; then the seed's contest sweep (profiles_v/contest_scratch_bv) and
# the 100-trial replay on the near-tie workloads. Then a profile of the retained MoE dispatch at 14,107 tokens, and
# with what is left the indexer dispatch acc_blocks2_63.json's sweep and replay.
# Usage (carry .whl):  CALL=bv END_BY=540 bash scripts/sessions/gpu_session_bv.sh
source "$(dirname "$0")/../gpu_env.sh" session
S=operators/$IDX/solutions/seeds
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_bv.md" "benchmarks/results/indexer_probe"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_seeds.py tests/test_indexer_select.py -k "coop"
  if last_step_passed; then
    LONG=$(axis_band $IDX max_num_pages 33 1000)
    evaluate_once "$P/indexer_bv_acc.jsonl" $IDX $S/dsa_indexer_one_acc "$LONG"
    evaluate_once "$P/indexer_bv_coop4.jsonl" $IDX $S/dsa_indexer_coop "$LONG"
    evaluate_once "$P/indexer_bv_coop8.jsonl" $IDX "$S/dsa_indexer_coop@SELECTORS=8" "$LONG"
    evaluate_once "$P/indexer_bv_coop2.jsonl" $IDX "$S/dsa_indexer_coop@SELECTORS=2" "$LONG"
    contest_sweep $IDX $S/dsa_indexer_coop indexer_coop_bv "$P/contest_scratch_bv"
    step 120 env PARTS=2 SEED=$S/dsa_indexer_coop TAG=_coop bash scripts/indexer_probe.sh
  fi
  # the MoE large band (63 % of the mean, 0.19 of the FP8 roofline): where its 3.5 ms go, per kernel
  profile_once moe_large_bv $MOE operators/$MOE/solutions/dispatch/q8m16s4f_q8m64s4f_80.json \
    5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d
  # with what is left: the retained indexer with 2 spans per program above 63 pages (calls BP / BQ: 0.970 / 0.971
  # at 82-91 pages), its sweep and replay
  contest_sweep $IDX operators/$IDX/solutions/dispatch/acc_blocks2_63.json indexer_blocks2_bv "$P/contest_scratch_bv2"
  step 120 env PARTS=2 SEED=operators/$IDX/solutions/dispatch/acc_blocks2_63.json TAG=_acc_blocks2 \
    bash scripts/indexer_probe.sh
) &
finish_session $!
