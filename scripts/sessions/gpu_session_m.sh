#!/usr/bin/env bash
# Device call M and its repeats (2026-11-30, nvidia-h200-x2): the contest sweeps still owed to issue 3, resumed
# into benchmarks/results/traces_contest_h200 (REJECTED pairs evaluated again); the split over the two GPUs is
# sweeps_gpu0 / sweeps_gpu1 in scripts/gpu_env.sh (GDN prefill's slow reference and the retained kernel on GPU 1,
# its torch.compile and fla on GPU 0). A finished sweep is skipped in seconds, so the same script is rerun until
# every sweep is done. Rebuild the table on the CPU (scripts/README.md).
# Usage (carry .whl):  CALL=m END_BY=<limit - 60> bash scripts/sessions/gpu_session_m.sh   (limit: timeout_s, or the
# device time left minus ~60 s of cold start when that is less); GPU0_FIRST="CMD" runs CMD on GPU 0 first
# (GPU0_FIRST_S seconds at most, default 240);
# PACK_EXTRA='PATTERN ...' packs more result paths (e.g. a table GPU0_FIRST writes).
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
END_BY=${END_BY:-540}
CALL=${CALL:-m}
keep_packed "results_${CALL}" benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' \
  ${PACK_EXTRA:-}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  [ -n "${GPU0_FIRST:-}" ] && step "${GPU0_FIRST_S:-240}" bash -c "$GPU0_FIRST"  # e.g. GPU tests of a changed seed
  sweeps_gpu0 ) &
P0=$!
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_${CALL}_gpu1.log"
  sweeps_gpu1 ) &
P1=$!
finish_session $P0 $P1
