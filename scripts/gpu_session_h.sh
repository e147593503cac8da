#!/usr/bin/env bash
# Next device call (written 2026-11-30, not run yet): first GPU checks of the device-side input draws and the
# profiling path (torch.profiler + ncu), then the contest/baseline sweeps that issue 3 still needs, now that
# inputs are drawn on the GPU. Usage (carry .whl):  bash scripts/gpu_session_h.sh [BUDGET_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
L="$OUT/session_h.log"
END_BY=${END_BY:-570}
B=${1:-60}
step 150 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 120 -rs tests/harness/test_device_random.py \
  tests/test_inputs.py tests/test_seeds.py -k "device or inputs or moe"
step 120 python3 -m kernelopt.cli.main evaluate operator=gdn_decode_qk4_v8_d128_k_last \
  solution=operators/gdn_decode_qk4_v8_d128_k_last/retained/solution.json limit=3 \
  profile=benchmarks/results/profile_gdn_decode_retained_h200.json output=/tmp/tr_prof.jsonl
tar czf "$OUT/results_h.tgz" benchmarks/results 2>/dev/null
for PAIR in dsa_attention:dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 \
            moe:moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 \
            dsa_indexer:dsa_topk_indexer_fp8_h64_d128_topk2048_ps64; do
  NAME=${PAIR%%:*}; D=${PAIR#*:}
  LEFT=$(( END_BY - SECONDS - 15 )); [ "$LEFT" -lt 60 ] && break
  step "$LEFT" python3 benchmarks/contest.py --operators $D --budget-s "$B" --name "${NAME}_full_h200" \
    --traces "benchmarks/results/traces_contest_h200"
  tar czf "$OUT/results_h.tgz" benchmarks/results 2>/dev/null
done
ls -la "$OUT"
