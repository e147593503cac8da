#!/usr/bin/env bash
# Device call NC (2026-12-06, stop 58): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200); on any
# other card, where fla's GDN prefill baseline spends its calls. The contest sweeps read fla at 0.9 ms for one
# 30-token sequence and ~7.9 ms for every multi-sequence workload whatever its length, while its nine kernels take
# 24-190 us of device time (call Z, 2026-11-30: host gaps 98 %); "the chunk indices are prepared on the host" does
# not explain milliseconds. span_anatomy.py --host-calls profiles the host side of warm calls (cProfile) through the
# harness's own builder and timing, on 30 tokens / 1 sequence, 28 / 2 and 8,192 / 20; then the same for the retained
# kernel beside it, and the ceilings measured once more through harness.timing.median_call_ms (stop 57's mend, never
# run on a GPU).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=400 bash scripts/sessions/gpu_session_nc.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( h200_sweep_first && exit 0
  for sol in baselines/fla.json dispatch/recurrent_wy3hh_1376_s2bv32.json; do
    step "$(upto 200)" python3 benchmarks/span_anatomy.py --operator "$PRE" \
      --solution "operators/$PRE/solutions/$sol" --workloads f581a9c7 f2a9a537 546aba8e \
      --warmup 5 --iterations 10 --host-calls 5 --host-top 25 --name "prefill_$(basename "$sol" .json)_${CALL}"
  done
  step "$(upto 60)" python3 -m kernelopt.harness.ceilings --out "$OUT/ceilings_${CALL}.json"
) &
finish_session $!
