#!/usr/bin/env bash
# One device call: offline campaigns on rmsnorm_h4096 and GDN decode with official timing on the GPU,
# summaries written to $OUT (copied into benchmarks/results/ afterwards). Usage: bash scripts/gpu_campaigns.sh
set -u
source scripts/gpu_env.sh
export MLFLOW_TRACKING_URI=
cd "$(dirname "$0")/.." || exit 1
run() { echo "+ $*"; "$@"; }
C1="kernelopt optimize operator=rmsnorm_h4096 controller.max_candidates=10 controller.max_rounds=4 controller.wall_clock_s=170 campaign.name=h200_rmsnorm"
run timeout 240 python3 -m kernelopt.cli.main optimize operator=rmsnorm_h4096 controller.max_candidates=10 \
  controller.max_rounds=4 controller.wall_clock_s=170 campaign.name=h200_rmsnorm 2>&1 | tail -40
run python3 benchmarks/campaign_summary.py rmsnorm_h4096 --name campaign_rmsnorm_h4096_h200 --command "$C1" >/dev/null
C2="kernelopt optimize operator=gdn_decode_qk4_v8_d128_k_last operator.workload_sample=14 controller.max_candidates=10 controller.max_rounds=4 controller.wall_clock_s=230 campaign.name=h200_gdn_decode"
run timeout 300 python3 -m kernelopt.cli.main optimize operator=gdn_decode_qk4_v8_d128_k_last operator.workload_sample=14 \
  controller.max_candidates=10 controller.max_rounds=4 controller.wall_clock_s=230 campaign.name=h200_gdn_decode 2>&1 | tail -40
run python3 benchmarks/campaign_summary.py gdn_decode_qk4_v8_d128_k_last --name campaign_gdn_decode_h200 --command "$C2" >/dev/null
cp benchmarks/results/campaign_*_h200.* "$OUT"/ 2>/dev/null
tar czf "$OUT/mlruns_h200.tgz" mlruns 2>/dev/null
ls -la "$OUT"
