#!/usr/bin/env bash
# Device call DS (2026-12-03, after call DR and the adoption of picked_dr.json, 1.105x vs fla in call DR). One GPU:
#   1. the retained picked_dr swept again with fla over the 54 workloads (the repeat) -> contest_decode_picked_dr_ds.md;
#   2. a campaign on 7 workloads that includes the retained solution (operators/<def>/retained/solution.json; the
#      eight seeds' defaults, gdn_decode_cuda's among them): gated, swept, repeated, promoted through the registry
#      unless a candidate beats it -> campaign_gdn_decode_ret2_ds_h200.md, the champion's export in
#      $P/gdn_decode_ret2_campaign_champion.json (call DJ's is gdn_decode_ret_campaign_champion.json).
# The wheels: .whl_idx plus fla_core, as one xz archive (bash scripts/pack_site.sh .whl_idxf .whl_campf).
# Usage (carry .whl_campf):  WHEELS=.whl_campf CALL=ds END_BY=560 CAMP_S=180 bash scripts/sessions/gpu_session_ds.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/campaign_*_${CALL}_h200.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  decode_fla_sweep picked_dr "decode_picked_dr_${CALL}" "$P/contest_scratch_${CALL}"
  campaign "$DEC" gdn_decode_ret2 7 "campaign.include=[operators/$DEC/retained/solution.json]"
) &
finish_session $!
