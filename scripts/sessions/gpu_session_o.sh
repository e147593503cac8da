#!/usr/bin/env bash
# Device call O (2026-11-30, nvidia-h200-x2). GPU 0: the DSA indexer sweep resumed (issue 3), then GDN prefill's
# retained kernel, torch.compile and fla. GPU 1 (issue 7): the GDN decode campaign long enough for band rounds
# (evidence-driven controller, 14 workloads), its champion exported to operators/<GD>/retained/, then the new
# champion against flash-linear-attention on all 54 decode workloads side by side (own trace folder: the
# champion is another kernel than the one traced under `retained` in traces_contest_h200); then the decode
# reference sweep resumed with what is left.
# Usage (carry .whl):  END_BY=<limit - 60> bash scripts/sessions/gpu_session_o.sh [CAMPAIGN_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
END_BY=${END_BY:-530}
CAMP_S=${1:-200}
GD=gdn_decode_qk4_v8_d128_k_last
# (added after call O, which was cut before packing: what the call measured comes back even when cut)
keep_packed results_o benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' \
  'benchmarks/results/campaign_gdn_decode_bands_h200.*' 'benchmarks/results/contest_gdn_decode_bands_h200.*' \
  /tmp/champ /tmp/tr_bands mlruns
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_o_gpu0.log"
  sweeps_gpu0 ) &
P0=$!
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_o_gpu1.log"
  step $((CAMP_S + 40)) python3 -m kernelopt.cli.main optimize operator=$GD operator.workload_sample=14 \
    controller.max_candidates=16 controller.max_rounds=8 controller.wall_clock_s=$CAMP_S \
    campaign.name=h200_gdn_decode_bands
  mkdir -p /tmp/champ
  step 60 python3 -m kernelopt.cli.main export $GD --alias champion -o /tmp/champ/solution.json
  step 60 python3 benchmarks/campaign_summary.py $GD --name campaign_gdn_decode_bands_h200 \
    --command "kernelopt optimize operator=$GD operator.workload_sample=14 ... (scripts/sessions/gpu_session_o.sh)"
  [ -f /tmp/champ/solution.json ] && step "$(left)" python3 benchmarks/contest.py --operators $GD \
    --solution $GD=/tmp/champ/solution.json --baselines fla --budget-s 100000 --name gdn_decode_bands_h200 \
    --traces /tmp/tr_bands
  RETRY=" " EXTRA="--baselines reference --no-retained" SUFFIX=_gpu1 step "$(left)" \
    bash scripts/contest_resume.sh gdn_decode ) &
P1=$!
finish_session $P0 $P1
