#!/usr/bin/env bash
# Device call JD (2026-12-06): call JC's steps with the H200's timing first. Device starts were refused three times
# this session (each refusal cost up to 180 s of device time), so one call has to count: on an H200 it sweeps
# recurrent_one_832_wy3hh_1376_s2bv32 (the one-launch prefill seed from 49 to 832 tokens; swept on an H100 in call
# JB: 100/100, 0.628 of the retained dispatch on its 40 workloads) into $P/contest_scratch_$CALL and the retained
# dispatch on those 40 workloads right after, then `kernelopt doctor`, the one-launch seed's test_seeds GPU points
# and the harness's GPU tests with what time is left. On any other card only the checks (no timings to adopt).
# Ran 2026-12-06 03:13 on an H100 (benchmarks/results/gpu_session_2026-12-06.md): no sweep; doctor, the seed's GPU
# points and 52 GPU tests passed. ONLY_CARD=H200 (scripts/gpu_env.sh) skips those checks too on another card.
# Calls JD-JF of 2026-12-06 all came on H100s; on the last, the one-launch seed took 0.75-0.78 of the retained dispatch
# on 959-1,377 tokens (faster on all six of 959-983, slower at 1,377): so the sweep is now DISPATCH (default
# recurrent_one_1376_s2bv32: the one-launch seed from 49 to 1,376 tokens) and the retained dispatch beside it on
# 49 <= tokens < UPPER (default 1,377: where the two differ). DISPATCH=recurrent_one_832_wy3hh_1376_s2bv32 UPPER=833 is the sweep of call JB.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=520 [ONLY_CARD=H200] [DISPATCH=...] [UPPER=...] \
#   bash scripts/sessions/gpu_session_jd.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  prefill_sweep_on_h200 || echo "=== not an H200: no prefill sweep" >> "$L"
  step "$(upto 60)" python3 -m kernelopt.cli.main doctor
  step "$(upto 150)" python3 -m pytest -q "tests/test_seeds.py::test_seed_correct_on_gpu[gdn_prefill_onelaunch]"
  step "$(left)" python3 -m pytest -q tests/harness/test_sealed.py tests/adversarial/test_adversarial_corpus.py \
    tests/adversarial/test_adversarial_gpu.py tests/executor/test_executor_readonly.py
) &
finish_session $!
