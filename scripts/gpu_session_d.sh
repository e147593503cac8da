#!/usr/bin/env bash
# A device call (written 2026-11-29, not run yet; its GPU-test and throughput steps ran in call E/F of
# 2026-11-30 and were dropped): the GDN decode campaign long enough for band rounds and a dispatch,
# export, and the decode contest with full traces. Usage on the lent H200 (carry .whl):
#   bash scripts/gpu_session_d.sh [CAMPAIGN_S CONTEST_BUDGET_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
CAMP_S=${1:-200}; BUDGET=${2:-150}
L="$OUT/session_d.log"
GD=gdn_decode_qk4_v8_d128_k_last
step $((CAMP_S + 40)) python3 -m kernelopt.cli.main optimize operator=$GD operator.workload_sample=14 \
  controller.max_candidates=16 controller.max_rounds=6 controller.wall_clock_s=$CAMP_S campaign.name=h200_gdn_decode_bands
mkdir -p operators/$GD/retained
step 30 python3 -m kernelopt.cli.main export $GD --alias champion -o operators/$GD/retained/solution.json
step 30 python3 benchmarks/campaign_summary.py $GD --name campaign_gdn_decode_bands_h200 \
  --command "kernelopt optimize operator=$GD (scripts/gpu_session_d.sh)"
tar czf "$OUT/results_d.tgz" benchmarks/results operators/$GD/retained 2>/dev/null
LEFT=$(( ${END_BY:-570} - SECONDS ))
step $(( LEFT < BUDGET * 4 + 60 ? LEFT : BUDGET * 4 + 60 )) python3 benchmarks/contest.py --operators $GD \
  --budget-s $BUDGET --name gdn_decode_h200 --traces /tmp/tr
cp /tmp/tr/$GD/retained.jsonl operators/$GD/retained/traces.jsonl 2>/dev/null
tar czf "$OUT/results_d.tgz" benchmarks/results operators/$GD/retained /tmp/tr 2>/dev/null
tar czf "$OUT/mlruns_d.tgz" mlruns 2>/dev/null
ls -la "$OUT"
