#!/usr/bin/env bash
# Device call AZ (2026-12-01): narrower state-walk tiles for the GDN prefill middle band (461-2,284 tokens, 1-4
# sequences: at BV 32 the walk has only 32-128 programs for 132 SMs). wy3 at BV 16 with 8 warps hit an illegal
# memory access on the GPU (call AX; it passes in the interpreter), so BV 16 is tried with 4 warps as well.
#   1. Side by side on five middle-band workloads of 1-3 sequences: wy3f (BV 32, 8 warps), wy3f at BV 16 / 4 warps.
#   2. wy3f at BV 16 / 4 warps on the 8,192-token, 20-sequence workload (does the crash follow the warp count?).
#   3. wy3f at BV 16 / 8 warps on the five (expected to crash: recorded status and log).
# Usage (carry .whl):  CALL=az END_BY=<limit - 60> bash scripts/sessions/gpu_session_az.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
S=operators/$PRE/solutions/seeds/gdn_prefill_chunked_wy3f
MID5=$(python3 - <<'PY'
import json
rows = [json.loads(line)["workload"] for line in open("operators/gdn_prefill_qk4_v8_d128_k_last/workloads.jsonl")]
want = {(525, 1), (1377, 1), (2107, 1), (983, 2), (1800, 3)}
seen, out = set(), []
for w in rows:
    key = (w["axes"]["total_seq_len"], w["axes"]["num_seqs"])
    if key in want and key not in seen:
        seen.add(key)
        out.append(w["uuid"])
print(",".join(out))
PY
)
LONG8K=546aba8e-e39a-590a-8949-b2a4b5e09890
keep_packed "results_${CALL}" "$P"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/prefill_az_wy3f_mid5.jsonl" $PRE "$S" "$MID5"
  evaluate_once "$P/prefill_az_wy3f_bv16w4_mid5.jsonl" $PRE "$S@BV=16,num_warps=4" "$MID5"
  evaluate_once "$P/prefill_az_wy3f_bv16w4_8k.jsonl" $PRE "$S@BV=16,num_warps=4" "$LONG8K"
  evaluate_once "$P/prefill_az_wy3f_bv16w8_mid5.jsonl" $PRE "$S@BV=16" "$MID5"
) &
finish_session $!
