#!/usr/bin/env bash
# Device call DE (2026-12-03): the DSA indexer's new retained kernel (the dispatch hist_hb10_b2_45.json, adopted after
# calls DB-DD by side-by-side evaluation and a contest sweep) through the platform: a campaign on 7 workloads that
# includes operators/<def>/retained/solution.json, gated, swept and promoted through the registry gates unless a
# candidate beats it (as call AU did for the kernel retained then); the champion's export lands in
# $P/dsa_indexer_ret_de_campaign_champion.json, the summary in benchmarks/results/campaign_dsa_indexer_ret_de_de_h200.md.
# Not run in the session that wrote it (its device time ran out); run on 2026-12-03 10:50-10:54 UTC: the first
# attempt carried .whl_df (no databricks_sdk: mlflow's import failed), the second (CAMP_S=45) stopped after the
# gates, the third promoted the dispatch:
# Usage (carry .whl_idx, see scripts/gpu_env.sh):  WHEELS=.whl_idx CALL=de END_BY=440 CAMP_S=180 bash scripts/sessions/gpu_session_de.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_packed "results_${CALL}" "$P" "benchmarks/results/campaign_*_ret_*${CALL}_h200.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  campaign "$IDX" dsa_indexer_ret_de 7 "campaign.include=[operators/$IDX/retained/solution.json]"
) &
finish_session $!
