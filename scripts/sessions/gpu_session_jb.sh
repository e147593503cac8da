#!/usr/bin/env bash
# Device call JB (prepared 2026-12-05, rewritten 2026-12-06): call JA (gpu_session_ja.sh) found the one-launch seed
# gdn_prefill_onelaunch at its defaults 0.32-0.52x of the retained dispatch from 116 to 401 tokens (both retained
# runs within 1 % there) and ahead or level to 832, behind from 1,377 on. This call sweeps the retained dispatch
# with that band on the seed (recurrent_one_832_wy3hh_1376_s2bv32: recurrent to 48 tokens, onelaunch to 832, the
# retained leaves above, same hashes) over all 100 workloads (contest.py, resumable: name
# prefill_recurrent_one_832_wy3hh_1376_s2bv32_jb, traces $P/contest_scratch_jb), then the retained dispatch on the 40
# workloads of 49-832 tokens (the only ones whose code differs) in the same call, for the side by side with the
# sweep's traces of that band (benchmarks/trace_agreement.py). Only one sweep fits a call and device starts are
# scarce, so the sweep comes first (JA's side by side already covered the band); a second call of the same script
# (after unpacking the first's results into the checkout) skips what is done and resumes. First a probe of the
# workers' sandbox (network namespace, read-only mounts: new 2026-12-06), last the executor's GPU tests.
# Ran 2026-12-06 00:33 on an H100 (benchmarks/results/gpu_session_2026-12-06.md): new / retained 0.628 on the band.
# The H200 sweep is in gpu_session_jc.sh (CALL=jd: a new traces folder; contest_scratch_jb holds the H100 traces,
# which contest.py --resume refuses to extend on another card).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=jb END_BY=585 bash scripts/sessions/gpu_session_jb.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  step 30 python3 -c "from kernelopt.executor import netns, readonly_mounts as r; print(netns.apply(), r.apply())"
  prefill_sweep_beside_retained recurrent_one_832_wy3hh_1376_s2bv32 49 833
  step "$(left)" python3 -m pytest -q tests/executor/test_executor_gpu.py tests/executor/test_executor_readonly.py
) &
finish_session $!
