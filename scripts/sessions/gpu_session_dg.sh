#!/usr/bin/env bash
# Device call DG (2026-12-03). One GPU, one queue:
#   1. the new GDN decode seed gdn_decode_lean's GPU tests (tests/test_seeds.py), then
#      benchmarks/decode_copy_ceiling.py at batch 16-64: the retained kernel, fla, torch's and a Triton tile copy of
#      the state bytes, and gdn_decode_lean at BV 8 / 4 with the output from the old or the new state
#      -> benchmarks/results/decode_copy_ceiling_h200_dg.{md,json} (call DF: decodes at 1.07-1.11x the copy's time,
#      1.10x over fla needs ~1.015x);
#   2. the retained dispatch and the two lean dispatches (vtile BV 8 / 8 warps up to batch 8, gdn_decode_lean at BV 8
#      or 4 above) side by side on the 29 workloads of batch 16-64, the retained again last
#      -> $P/decode_dg_<name>.jsonl;
#   3. unless the retained dispatch was fastest, the pick's contest sweep with fla on all 54 workloads
#      -> benchmarks/results/contest_decode_<pick>_dg.md (traces $P/contest_scratch_dg).
# (Steps 2 and 3 are `decode_side_by_side_sweep` of scripts/gpu_env.sh since the review of 2026-12-03; the call ran
# them written out, the same commands.)
# Usage (carry .whl_df: no mlflow needed, fla needed; see scripts/gpu_env.sh):
#   WHEELS=.whl_df CALL=dg END_BY=560 bash scripts/sessions/gpu_session_dg.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  S="operators/$DEC/solutions/seeds"
  step 200 python3 -m pytest -q -m gpu tests/test_seeds.py -k gdn_decode_lean
  if last_step_passed; then
    step 240 python3 benchmarks/decode_copy_ceiling.py --name "$CALL" --batches 16,32,48,64 \
      --solution "retained=operators/$DEC/retained/solution.json" --solution "lean=$S/gdn_decode_lean" \
      --solution "lean_bv4=$S/gdn_decode_lean@BV=4" --solution "lean_new=$S/gdn_decode_lean@OUT_FROM_OLD=0" \
      --solution "lean_bv4_new=$S/gdn_decode_lean@BV=4,OUT_FROM_OLD=0" \
      --solution "lean_bv16_w2=$S/gdn_decode_lean@BV=16,num_warps=2"
    decode_side_by_side_sweep bv8_w8_w1_8 bv8_w8_lean_8 bv8_w8_lean4_8
  fi
) &
finish_session $!
