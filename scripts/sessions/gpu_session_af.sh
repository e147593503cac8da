#!/usr/bin/env bash
# Device call AF (prepared 2026-12-01, for a session after call AE): the MoE and GDN prefill kernels through the
# platform (issues 7 and 9 ask for retained kernels "evaluated by the harness, logged as MLflow runs, promoted
# through the registry gates"; so far both retained kernels come from contest sweeps of hand-picked points).
# Queue (one GPU, in turn; every step is skipped once its output exists):
#   0. The MoE contest sweep of the new retained kernel, the three-band dispatch bf16_m16n64_m32_m64_80_901.json
#      (call AE: 1.0798 vs 1.1324 ms for the two-band one, `kernelopt evaluate` side by side); the reference and
#      torch.compile traces are already there, so only the retained label runs (scripts/contest_resume.sh moe).
#   1. `kernelopt optimize` on the MoE (offline generator within the seed's skills, evidence-driven controller,
#      7 sampled workloads, CAMP_S seconds): the controller has to find the bf16 intermediate / row-tile moves
#      itself from the seed's defaults (BLOCK_M 16, fp32). Its champion is exported from the registry
#      (`kernelopt export --alias champion`) -> profiles_v/moe_campaign_champion.json and summarised
#      (benchmarks/campaign_summary.py -> benchmarks/results/campaign_moe_h200.{md,json}).
#   2. The same for GDN prefill (three seeds: recurrent, chunked, WY; 14 sampled workloads; band rounds can compose
#      a dispatch) -> profiles_v/prefill_campaign_champion.json, campaign_gdn_prefill_af_h200.{md,json}.
# Then, here: if a champion matches or beats the contest's retained kernel (compare with
# benchmarks/dispatch_plan.py after a `kernelopt evaluate` of it on every workload), it becomes the retained
# kernel through contest_resume.sh as usual — and then it is a registry champion, not a hand-picked point.
# Usage (carry .whl):  CALL=af END_BY=<limit - 60> bash scripts/sessions/gpu_session_af.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-200}
T=benchmarks/results/traces_contest_h200
keep_packed "results_${CALL}" "$P" 'benchmarks/results/campaign_*_h200.*' mlruns "$T/$MOE" \
  'benchmarks/results/contest_*_h200_resumed*'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  [ "$(wc -l < "$T/$MOE/retained.jsonl" 2>/dev/null || echo 0)" -ge 19 ] || step "$(left)" bash scripts/contest_resume.sh moe
  campaign $MOE moe 7
  campaign $PRE prefill 14
) &
finish_session $!
