#!/usr/bin/env bash
# Device call JC (2026-12-06): first the GPU checks of this session's harness changes (reference outputs sealed
# between comparisons, kernelopt/harness/sealed.py; workers' read-only mounts): the sealed round trip on CUDA, the
# adversarial corpus on the GPU (every cheat through the harness on CUDA, copy_reference in a worker) and the
# read-only worker tests. Then, only when the machine is an H200 (the device tool may answer an nvidia-h200 call with
# an H100, as it did for call JB), what call JB measured on the H100: the contest sweep of
# recurrent_one_832_wy3hh_1376_s2bv32 (name prefill_recurrent_one_832_wy3hh_1376_s2bv32_jc, traces
# $P/contest_scratch_jc, resumable) and the retained dispatch on the 40 workloads of 49-832 tokens in the same call.
# Ran 2026-12-06 00:59 on an H100 (benchmarks/results/gpu_session_2026-12-06.md): 47 passed, 6 launch-less cheats
# stopped by the CUPTI timer first (the tests now expect that on a GPU); no sweep. `kernelopt doctor` and the
# one-launch seed's test_seeds GPU points (never run on a GPU yet) added since.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=jd END_BY=585 bash scripts/sessions/gpu_session_jc.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  step 60 python3 -m kernelopt.cli.main doctor
  step 200 python3 -m pytest -q tests/harness/test_sealed.py tests/adversarial/test_adversarial_corpus.py \
    tests/adversarial/test_adversarial_gpu.py tests/executor/test_executor_readonly.py
  step 150 python3 -m pytest -q "tests/test_seeds.py::test_seed_correct_on_gpu[gdn_prefill_onelaunch]"
  if card_is H200; then
    prefill_sweep_beside_retained recurrent_one_832_wy3hh_1376_s2bv32 49 833
  else
    echo "=== not an H200: no prefill sweep" >> "$L"
  fi
) &
finish_session $!
