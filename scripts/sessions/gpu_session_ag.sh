#!/usr/bin/env bash
# Device call AG (2026-12-01, after call AF): campaigns through the platform, then the persistent decode space.
#   1. GDN prefill campaign (three seeds: recurrent, chunked, WY; 14 sampled workloads; band rounds may compose a
#      dispatch): call AF cut it after the seed gates (95 s left) -> profiles_v/prefill_campaign_champion.json,
#      benchmarks/results/campaign_prefill_ag_h200.{md,json}.
#   2. The MoE campaign again, after the classifier fix: call AF's campaign read the 14,107-token band as
#      launch-bound (57 kernels per call, although 201 us each and 7 % host gaps) and tried launch directions
#      there; with `short_kernel_us` it reads compute-bound (SM 66 %) -> moe_ag_campaign_champion.json,
#      campaign_moe_ag_ag_h200.{md,json}.
#   3. The persistent decode seed's space (60 points, 7 workloads; resumed point by point) with what is left.
# Usage (carry .whl):  CALL=ag END_BY=<limit - 60> bash scripts/sessions/gpu_session_ag.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-200}
keep_packed "results_${CALL}" "$P" 'benchmarks/results/campaign_*_h200.*' mlruns \
  'benchmarks/results/controller_space_gdn_decode_persistent_h200.json'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  campaign $PRE prefill 14
  campaign $MOE moe_ag 7
  measure_space $DEC benchmarks/results/controller_space_gdn_decode_persistent_h200.json \
    --seed-kernel gdn_decode_persistent
) &
finish_session $!
