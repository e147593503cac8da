#!/usr/bin/env bash
# Device call FA (2026-12-04): GDN prefill's three wy3b kernels alone over launch options, on the sequence splits of
# real contest workloads (benchmarks/gdn_prefill_kernel_sweep.py --workload): Nsight Compute (call CE) put the state
# walk at 133 of 237 us on 8,192 tokens / 20 sequences, its longest sequence 1,422 tokens = 45 serial chunk steps of
# ~3 us at C 32. Does software pipelining (num_stages 2-3: the next chunk's loads issued before this chunk's dots)
# shorten the step? The retained dispatch runs every kernel at num_stages 1 (C 64 / BV 64 up to 16 sequences,
# C 32 / BV 64 / BV_O 128 above).
# Usage (carry .whl_camp):  WHEELS=.whl_camp CALL=fa END_BY=540 bash scripts/sessions/gpu_session_fa.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/gdn_prefill_kernel_sweep_*_${CALL}_*"
CONFIGS=(
  h,64,64,4,1,- h,64,64,4,2,- h,64,64,4,3,- h,64,32,4,1,- h,64,32,4,2,- h,64,64,8,2,-
  h,32,64,4,1,- h,32,64,4,2,- h,32,64,4,3,- h,32,32,4,2,- h,32,128,4,2,- h,32,64,8,2,-
  o,64,64,4,1,- o,64,64,4,2,- o,32,128,4,1,- o,32,128,4,2,-
  prep,64,-,8,1,- prep,64,-,8,2,- prep,32,-,4,1,- prep,32,-,4,2,-
)
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  for w in 546aba8e d68188c3 f21736ff 87bfd4c5 c7ddceba; do
    step "$(left)" python3 benchmarks/gdn_prefill_kernel_sweep.py --workload "$w" --scratch bf16 --name "${CALL}_$w" \
      --configs "${CONFIGS[@]}"
  done
) &
finish_session $!
