#!/usr/bin/env bash
# Device call LA (2026-12-06, stop 56): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200: the dispatch
# recurrent_one_1376_s2bv32 over all workloads, the retained dispatch beside it on 49-1,376 tokens); on any other card
# the GPU suite (`pytest -m gpu`, 102 tests in 17 files on 2026-12-06: every seed's GPU check, the harness's timers,
# the executor, the adversarial corpus, the baselines) as a regression check of every kernel on Hopper, one file per
# step (its start, limit and exit in the log, so a cut call says where it stopped), the files GPU_FILES (default: all
# of them) in turn, each bounded by what is left before END_BY. Call LA ran the whole suite as one step on an H100:
# 37 tests passed in the 549 s it had (the first 13 files and test_indexer_select.py up to hist0); calls LD and LF
# (SUITE_BY, GPU_FILES) 41 more: 78 of 102 on an H100, none failed.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=560 [SUITE_BY=<s>] [GPU_FILES="tests/a.py ..."] \
#   [GPU_K="<pytest -k expression>"] bash scripts/sessions/gpu_session_la.sh
# The 24 seed points calls LA-LF did not reach: GPU_FILES=tests/test_seeds.py GPU_K="(wy3h or wy3p or wy3v or onelaunch
#   or recurrent or gemm_tiled or moe or rmsnorm_rowwise) and not fused_add"
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
ALL_GPU_FILES="tests/adversarial/test_adversarial_gpu.py tests/executor/test_executor_gpu.py
  tests/harness/test_device_random.py tests/harness/test_evaluate.py tests/harness/test_profiling.py
  tests/harness/test_sealed.py tests/harness/test_timing.py tests/test_baselines.py tests/test_chunk_slots.py
  tests/test_fastlaunch.py tests/test_gdn_prefill_onelaunch.py tests/test_gdn_prefill_wy3.py tests/test_indexer_one.py
  tests/test_indexer_select.py tests/test_inputs.py tests/test_moe_q8.py tests/test_seeds.py"
( gpu0_log
  prefill_sweep_on_h200 && exit 0
  END_BY=${SUITE_BY:-$END_BY}  # another card: the suite may stop earlier (SUITE_BY), keeping device time for an H200
  gpu_suite ${GPU_FILES:-$ALL_GPU_FILES}
) &
finish_session $!
