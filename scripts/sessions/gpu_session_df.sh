#!/usr/bin/env bash
# Device call DF (2026-12-03). One GPU, one queue:
#   1. GDN decode: the new seed gdn_decode_stream's GPU tests (tests/test_seeds.py), then
#      benchmarks/decode_copy_ceiling.py (the retained kernel, vtile at 1 warp, the stream seed's L2 policies, fla,
#      torch's copy and a Triton tile copy of the same state bytes, side by side under the official timing; also
#      the copy behind a flush that leaves the L2 clean) -> benchmarks/results/decode_copy_ceiling_h200_df.{md,json};
#   2. the retained dispatch bv8_w8_w1_8 and the two stream dispatches (vtile BV 8 / 8 warps up to batch 8,
#      gdn_decode_stream above: evict-first loads, plain / evict-last stores) side by side on the 22 workloads of
#      batch > 8, the retained again last -> $P/decode_df_<name>.jsonl (compare with benchmarks/trace_agreement.py);
#   3. the DSA indexer's retained dispatch through a campaign and the registry gates (call DE's step) - skipped in
#      the call: the name dsa_indexer_ret was call AU's, whose champion file $P/dsa_indexer_ret_campaign_champion.json
#      exists, so `campaign` saw it done; it ran as call DE (scripts/sessions/gpu_session_de.sh) next;
#   4. unless the retained dispatch was fastest in 2, the pick's contest sweep with fla on all 54 workloads
#      -> benchmarks/results/contest_decode_<pick>_df.md (traces $P/contest_scratch_df).
# (Steps 2 and 4 are `decode_side_by_side_sweep` of scripts/gpu_env.sh since the review of 2026-12-03; the call ran
# them written out, the same commands.)
# Carry .whl_df (.whl without databricks_sdk; the checkout and .whl passed the device tool's 64 MiB). That works for
# this call's steps, which never import mlflow; mlflow 3.17 itself fails to import without databricks_sdk (call DE),
# so a campaign needs .whl_idx: mkdir -p .whl_df; cp .whl/*.whl .whl_df/; rm .whl_df/databricks_sdk-*.whl
# Usage:  WHEELS=.whl_df CALL=df END_BY=560 CAMP_S=45 bash scripts/sessions/gpu_session_df.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.*" \
  "benchmarks/results/campaign_*_ret_*${CALL}_h200.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 200 python3 -m pytest -q -m gpu tests/test_seeds.py -k gdn_decode_stream
  if last_step_passed; then step 240 python3 benchmarks/decode_copy_ceiling.py --name "$CALL"; fi
  decode_side_by_side_sweep bv8_w8_w1_8 bv8_w8_stream_ef_8 bv8_w8_stream_efel_8
) &
finish_session $!
