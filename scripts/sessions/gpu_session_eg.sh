#!/usr/bin/env bash
# Device call EG (2026-12-04), after call EF (`pytest -m gpu tests` reached 39 of its 94 tests in its 555 s and was
# cut before printing its report: 6 failed, no tracebacks): each of those 6 tests alone, in its own bounded step
# (`-x --tb=short`), so each failure's traceback reaches the log.
# Usage (carry .whl_gpu):  WHEELS=.whl_gpu CALL=eg END_BY=560 bash scripts/sessions/gpu_session_eg.sh
source "$(dirname "$0")/../gpu_env.sh" session
TESTS=(
  "tests/harness/test_evaluate.py::test_gpu_evaluation_uses_the_official_timer_and_records_the_gpu"
  "tests/test_fastlaunch.py::test_fast_launch_matches_jit_on_gpu"
  "tests/executor/test_executor_gpu.py::test_illegal_memory_access_replaces_the_worker_and_the_next_request_works"
  "tests/test_baselines.py::test_fla_decode_matches_reference"
  "tests/test_baselines.py::test_fla_prefill_matches_reference"
)
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  for t in "${TESTS[@]}"; do
    lim=$(left); [ "$lim" -gt 110 ] && lim=110
    step "$lim" python3 -m pytest -q -p no:cacheprovider --tb=short -x -rfEs "$t"
  done
) &
finish_session $!
