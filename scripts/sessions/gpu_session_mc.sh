#!/usr/bin/env bash
# Device call MC (2026-12-06, stop 57): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200); on any
# other card the executor's GPU tests (tests/executor/test_executor_gpu.py), the new one included: a persistent
# worker with executor.keep_built=1 gives a released solution's GPU memory back (three candidates holding 12 GiB each
# in a module global all pass under a 20 GiB check), keeping three it does not (the second fails) - then the
# adversarial corpus and the harness's timers on the GPU as a regression check of the worker change.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=400 bash scripts/sessions/gpu_session_mc.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( h200_sweep_first && exit 0
  for f in tests/executor/test_executor_gpu.py tests/adversarial/test_adversarial_gpu.py tests/harness/test_timing.py; do
    step "$(left)" python3 -m pytest -v -m gpu -p no:cacheprovider --timeout 300 -rs --durations=10 \
      --junitxml="$OUT/gpu_suite_${CALL}_$(basename "$f" .py).xml" "$f"
  done
) &
finish_session $!
