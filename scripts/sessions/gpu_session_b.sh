#!/usr/bin/env bash
# Device call B: GDN decode + prefill campaigns (offline generator, official timing, MLflow on sqlite),
# champion export to operators/<def>/retained/, then benchmarks/contest.py side by side with the
# baselines (reference, torch.compile, fla) and their full-sweep traces.
# Usage on the lent H200 (carry .whl): bash scripts/sessions/gpu_session_b.sh [DECODE_S PREFILL_S CONTEST_BUDGET_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
DEC_S=${1:-100}; PRE_S=${2:-130}; BUDGET=${3:-30}
L="$OUT/session_b.log"
GD=gdn_decode_qk4_v8_d128_k_last; GP=gdn_prefill_qk4_v8_d128_k_last
step 90 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_seeds.py -k "gdn"
step $((DEC_S + 40)) python3 -m kernelopt.cli.main optimize operator=$GD operator.workload_sample=7 \
  controller.max_candidates=8 controller.max_rounds=3 controller.wall_clock_s=$DEC_S campaign.name=h200_gdn_decode
step $((PRE_S + 60)) python3 -m kernelopt.cli.main optimize operator=$GP operator.workload_sample=6 \
  controller.max_candidates=8 controller.max_rounds=3 controller.wall_clock_s=$PRE_S campaign.name=h200_gdn_prefill
for D in $GD $GP; do
  mkdir -p operators/$D/retained
  step 30 python3 -m kernelopt.cli.main export $D --alias champion -o operators/$D/retained/solution.json
  step 30 python3 benchmarks/campaign_summary.py $D --name campaign_${D%%_qk4*}_h200 \
    --command "kernelopt optimize operator=$D (scripts/sessions/gpu_session_b.sh)"
done
tar czf "$OUT/results_b.tgz" benchmarks/results operators/*/retained 2>/dev/null  # in case the contest runs long
LEFT=$(( ${END_BY:-570} - SECONDS ))  # the contest takes what is left of the call, minus the packing
step $(( LEFT < BUDGET * 9 + 60 ? LEFT : BUDGET * 9 + 60 )) python3 benchmarks/contest.py --operators $GD $GP --budget-s $BUDGET --name gdn_h200 \
  --traces /tmp/ctraces
for D in $GD $GP; do cp /tmp/ctraces/$D/retained.jsonl operators/$D/retained/traces.jsonl 2>/dev/null; done
tar czf "$OUT/results_b.tgz" benchmarks/results operators/*/retained /tmp/ctraces 2>/dev/null
tar czf "$OUT/mlruns_b.tgz" mlruns 2>/dev/null
ls -la "$OUT"
