#!/usr/bin/env bash
# Device call J (2026-11-30, nvidia-h200-x2). GPU 0: the profiled-then-timed GPU test (Kineto replaces the CUPTI
# timer's callbacks), the GDN decode retained kernel evaluated with profiles (torch.profiler + ncu), a short GDN
# decode campaign whose band classes come from measured profiles (controller.profile_bands), its summary, then
# the indexer contest resumed. GPU 1: contest sweeps resumed (DSA attention, GDN decode, ...).
# Usage (carry .whl):  bash scripts/sessions/gpu_session_j.sh   (scripts/sessions/gpu_session_k.sh reruns it with CALL=k TAG=_k)
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
END_BY=${END_BY:-540}
CALL=${CALL:-j}    # log / tarball names
TAG=${TAG:-}       # campaign and summary name suffix
GPU1_OPS=${GPU1_OPS:-dsa_attention gdn_decode gdn_prefill}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 100 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 90 -rs tests/harness/test_profiling.py
  step 120 python3 -m kernelopt.cli.main evaluate operator=gdn_decode_qk4_v8_d128_k_last \
    solution=operators/gdn_decode_qk4_v8_d128_k_last/retained/solution.json limit=3 \
    profile=benchmarks/results/profile_gdn_decode_retained_h200.json output=/tmp/tr_prof.jsonl
  C="kernelopt optimize operator=gdn_decode_qk4_v8_d128_k_last operator.workload_sample=14 controller.max_candidates=8 controller.max_rounds=4 controller.wall_clock_s=150 campaign.name=h200_gdn_decode_profiled${TAG}"
  step 200 python3 -m kernelopt.cli.main ${C#kernelopt }
  step 60 python3 benchmarks/campaign_summary.py gdn_decode_qk4_v8_d128_k_last --name campaign_gdn_decode_profiled${TAG}_h200 --command "$C"
  step "$(left)" bash scripts/contest_resume.sh dsa_indexer ) &
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_${CALL}_gpu1.log"
  step "$(left)" bash scripts/contest_resume.sh $GPU1_OPS ) &
wait
tar czf "$OUT/results_${CALL}.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
