#!/usr/bin/env bash
# One device call: offline campaign on GDN decode (7 workloads, one per batch size) with official timing.
set -u
source scripts/gpu_env.sh
cd "$(dirname "$0")/.." || exit 1
C="kernelopt optimize operator=gdn_decode_qk4_v8_d128_k_last operator.workload_sample=7 controller.max_candidates=6 controller.max_rounds=3 controller.wall_clock_s=140 campaign.name=h200_gdn_decode"
echo "+ $C"
timeout 190 python3 -m kernelopt.cli.main optimize operator=gdn_decode_qk4_v8_d128_k_last operator.workload_sample=7 \
  controller.max_candidates=6 controller.max_rounds=3 controller.wall_clock_s=140 campaign.name=h200_gdn_decode 2>&1 \
  | grep -v Downloading | tail -45
python3 benchmarks/campaign_summary.py gdn_decode_qk4_v8_d128_k_last --name campaign_gdn_decode_h200 --command "$C" >/dev/null
cp benchmarks/results/campaign_gdn_decode_h200.* "$OUT"/ 2>/dev/null
tar czf "$OUT/mlruns_gdn_h200.tgz" mlruns 2>/dev/null
