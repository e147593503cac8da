#!/usr/bin/env bash
# Device call K (2026-11-30, nvidia-h200-x2), after call J showed timed calls ~2x slower once a profile had run
# inside the worker (profiles now run in child processes, ncu with --clock-control none). GPU 0: the GPU profiling
# tests, the GDN decode retained kernel evaluated with profiles again, the short profile-backed GDN decode campaign
# again, then the indexer contest resumed. GPU 1: the GDN decode contest resumed (torch.compile no longer REJECTED
# for tqdm's monitor thread).
# Usage (carry .whl):  bash scripts/gpu_session_k.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
END_BY=${END_BY:-515}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_k_gpu0.log"
  step 100 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 90 -rs tests/harness/test_profiling.py
  step 120 python3 -m kernelopt.cli.main evaluate operator=gdn_decode_qk4_v8_d128_k_last \
    solution=operators/gdn_decode_qk4_v8_d128_k_last/retained/solution.json limit=3 \
    profile=benchmarks/results/profile_gdn_decode_retained_h200.json output=/tmp/tr_prof.jsonl
  C="kernelopt optimize operator=gdn_decode_qk4_v8_d128_k_last operator.workload_sample=14 controller.max_candidates=8 controller.max_rounds=4 controller.wall_clock_s=150 campaign.name=h200_gdn_decode_profiled_k"
  step 200 python3 -m kernelopt.cli.main ${C#kernelopt }
  step 60 python3 benchmarks/campaign_summary.py gdn_decode_qk4_v8_d128_k_last --name campaign_gdn_decode_profiled_k_h200 --command "$C"
  step "$(left)" bash scripts/contest_resume.sh dsa_indexer ) &
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_k_gpu1.log"
  step "$(left)" bash scripts/contest_resume.sh gdn_decode gdn_prefill ) &
wait
tar czf "$OUT/results_k.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
