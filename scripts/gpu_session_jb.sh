#!/usr/bin/env bash
# Device call JB (prepared 2026-12-05, run 2026-12-06): call JA (gpu_session_ja.sh) found the one-launch seed
# gdn_prefill_onelaunch at its defaults 0.32-0.52x of the retained dispatch from 61 to 401 tokens (both retained runs
# within 1 % there) and ahead or level to 832, behind from 1,377 on. The retained dispatch with that band on the seed
# (recurrent_one_832_wy3hh_1376_s2bv32: recurrent to 48 tokens, onelaunch to 832, the retained leaves above, same
# hashes) side by side with the retained dispatch on all 40 workloads of 49-832 tokens (the only ones whose code
# differs): retained first, new, retained again (prefill_pick_sweep), then the pick's resumable contest sweep
# (prefill_<pick>_jb, traces $P/contest_scratch_jb) unless the retained one stays. A second call of the same script
# (after unpacking the first's results into the checkout) skips what is done and resumes the sweep. First a probe of
# the workers' sandbox (network namespace, read-only mounts: new 2026-12-06), last the executor's GPU tests.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=jb END_BY=585 bash scripts/gpu_session_jb.sh
source "$(dirname "$0")/gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  step 30 python3 -c "from kernelopt.executor import netns, readonly_mounts as r; print(netns.apply(), r.apply())"
  prefill_pick_sweep "$(prefill_band 49 833)" recurrent_wy3hh_1376_s2bv32 recurrent_one_832_wy3hh_1376_s2bv32
  step "$(left)" python3 -m pytest -q tests/executor/test_executor_gpu.py tests/executor/test_executor_readonly.py
) &
finish_session $!
