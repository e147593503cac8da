#!/usr/bin/env bash
# Device call EF (2026-12-04; again as EH with KERNELOPT_TEST_INSTAFAIL=1 and -v, END_BY 420): the whole GPU test suite (`make gpu-test`'s `pytest -m gpu tests`: 94 tests, the
# 111 that skip on the CPU machine among them) on the H200 at the checkout's HEAD, once, with a JUnit report and the
# slowest tests; no timings. Earlier calls ran only the tests of the seed they measured.
# Usage (carry .whl_gpu = .whl_eval plus fla_core, for the fla baseline tests):
#   WHEELS=.whl_gpu CALL=ef END_BY=560 bash scripts/sessions/gpu_session_ef.sh
# A second call resumes with the tests the first did not reach: PYTEST_ARGS='--deselect ...' or a -k expression.
# Calls EF-EI passed PYTEST_ARGS='--ignore=tests/tracking --ignore=tests/test_durability.py --ignore=tests/scaleout'
# (those modules import MLflow, not carried); tests/conftest.py now leaves them out by itself where MLflow is missing.
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/gpu_suite_h200_${CALL}.xml"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >> "$L"
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> "$L"
  # shellcheck disable=SC2086  # PYTEST_ARGS is a list of arguments
  step "$(left)" env KERNELOPT_TEST_INSTAFAIL=1 python3 -m pytest -v -m gpu tests -p no:cacheprovider -rfEs --durations=30 \
    --junitxml="benchmarks/results/gpu_suite_h200_${CALL}.xml" ${PYTEST_ARGS:-}
) &
finish_session $!
