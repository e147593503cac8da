#!/usr/bin/env bash
# Next device call (written 2026-11-30, not run yet; nvidia-h200-x2): the contest sweeps still owed to issue 3,
# resumed into benchmarks/results/traces_contest_h200 (REJECTED pairs evaluated again: the thread-guard false
# positives of calls J and K are fixed). GPU 0: the DSA indexer (40/128 done); GPU 1: GDN decode (reference 11/54),
# then GDN prefill (11/100). Several calls add up; rebuild the table on the CPU afterwards (scripts/README.md).
# Usage (carry .whl):  bash scripts/gpu_session_l.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
END_BY=${END_BY:-540}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_l_gpu0.log"
  step "$(left)" bash scripts/contest_resume.sh dsa_indexer ) &
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_l_gpu1.log"
  step "$(left)" bash scripts/contest_resume.sh gdn_decode gdn_prefill ) &
wait
tar czf "$OUT/results_l.tgz" benchmarks/results/traces_contest_h200 benchmarks/results/contest_*_resumed.* 2>/dev/null
ls -la "$OUT"
