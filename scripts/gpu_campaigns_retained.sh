#!/usr/bin/env bash
# Retained kernels through the platform: for each named operator (short names as scripts/contest_resume.sh), a
# campaign on 7 workloads that includes the operator's retained solution (operators/<def>/retained/solution.json):
# gated, swept, repeated and promoted through the registry gates unless a candidate beats it; the champion's export
# lands in $P/<name>_ret_campaign_champion.json, the summary in benchmarks/results/campaign_<name>_ret_<call>_h200.md.
# Queued 2026-12-01 (two calls of about 9 minutes: two campaigns of CAMP_S seconds each):
#   CALL=ao END_BY=540 bash scripts/gpu_campaigns_retained.sh gdn_prefill dsa_indexer
#   CALL=ap END_BY=540 bash scripts/gpu_campaigns_retained.sh dsa_attention moe
# 2026-12-03 call DJ (GDN decode's dispatch of call DL; the wheels as one xz archive, scripts/pack_site.sh: the
# checkout plus .whl_idx no longer fit the device tool's 64 MiB):
#   WHEELS=.whl_camp CALL=dj END_BY=540 CAMP_S=180 bash scripts/gpu_campaigns_retained.sh gdn_decode
# 2026-12-05 calls HA / HC, one operator a call (a second one gets only what the first left):
#   WHEELS=.whl_camp CALL=ha END_BY=560 CAMP_S=300 bash scripts/gpu_campaigns_retained.sh gdn_prefill
# (call AK's GDN prefill campaign ran past its clock in the band-profiling step, ~45 s of torch + ncu children per
# workload; profiling now gets at most a quarter of the clock left, kernelopt/campaign_steps.py). Carry .whl.
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${CAMP_S:-120}
keep_packed "results_${CALL}" "$P" "benchmarks/results/campaign_*_ret_${CALL}_h200.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  for NAME in "$@"; do
    case $NAME in
      moe) D=$MOE;;
      dsa_attention) D=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64;;
      dsa_indexer) D=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64;;
      gdn_decode) D=$DEC;;
      gdn_prefill) D=$PRE;;
      *) echo "gpu_campaigns_retained.sh: unknown operator '$NAME'" | tee -a "$L"; continue;;
    esac
    campaign "$D" "${NAME}_ret" 7 "campaign.include=[operators/$D/retained/solution.json]"
  done
) &
finish_session $!
