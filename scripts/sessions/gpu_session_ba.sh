#!/usr/bin/env bash
# Device call BA (2026-12-01): where wy3 at C 64 / BV 16 / 8 warps reads or writes out of bounds (illegal memory
# access on every workload tried on the H200, calls AT, AX, AZ; PASSED in the interpreter). One evaluation (no
# warmup, one iteration, one trial) of wy3f@BV=16 on the 525-token, 1-sequence workload under compute-sanitizer's
# memcheck (first 20 errors), then the same at BV 32 (expected clean) for contrast.
# Usage (carry .whl):  CALL=ba END_BY=<limit - 60> bash scripts/sessions/gpu_session_ba.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
S=operators/$PRE/solutions/seeds/gdn_prefill_chunked_wy3f
W=420d05a7-a4ed-5c34-8b46-193dd0a135df
keep_packed "results_${CALL}" "$P"
sanitized() {  # sanitized NAME SOLUTION
  step "$(( $(left) / 2 ))" compute-sanitizer --tool memcheck --print-limit 20 --log-file "$OUT/memcheck_$1.txt" \
    python3 -m kernelopt.cli.main evaluate operator=$PRE "solution='$2'" "workloads=[$W]" harness.time_reference=false \
    harness.warmup=0 harness.iterations=1 harness.trials=1 harness.timer=cuda_event output=$P/prefill_ba_memcheck_$1.jsonl
}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  sanitized bv16 "$S@BV=16"
  sanitized bv32 "$S"
) &
finish_session $!
