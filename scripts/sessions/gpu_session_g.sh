#!/usr/bin/env bash
# Device call G (2026-11-30, nvidia-h200): the rmsnorm seed space measured point by point for the controller
# efficiency replays (issue 5), then the MoE contest (seed vs reference vs torch.compile, traces kept).
# Usage (carry .whl):  bash scripts/sessions/gpu_session_g.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
L="$OUT/session_g.log"
END_BY=${END_BY:-500}
step 230 python3 benchmarks/controller_efficiency.py --mode measure --operator rmsnorm_h4096 --workloads 7 \
  --table benchmarks/results/controller_space_rmsnorm_h4096_h200.json
tar czf "$OUT/results_g.tgz" benchmarks/results 2>/dev/null
MOE=moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
LEFT=$(( END_BY - SECONDS - 10 ))
step "$LEFT" python3 benchmarks/contest.py --operators $MOE --budget-s $(( (LEFT - 30) / 3 )) --name moe_h200 \
  --solution $MOE=operators/$MOE/solutions/seeds/moe_grouped_fp8 --traces /tmp/tr_moe
mkdir -p benchmarks/results/traces_moe_h200 && cp -r /tmp/tr_moe/* benchmarks/results/traces_moe_h200/ 2>/dev/null
tar czf "$OUT/results_g.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
