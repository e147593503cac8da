#!/usr/bin/env bash
# Device call E (2026-11-30): the CUPTI-kept-initialised timer measured against the old per-trial finalize,
# GPU tests (timing, executor faults incl. GPU OOM, adversarial CUPTI cheats), DSA/MoE seeds on the GPU,
# harness throughput (persistent vs isolated) with per-phase host time, timing stability, then the
# reference baselines of the DSA and MoE definitions in the time left. Usage (carry .whl):
#   bash scripts/sessions/gpu_session_e.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
L="$OUT/session_e.log"
END_BY=${END_BY:-575}
step 75 python3 benchmarks/timer_overhead.py --gdn
step 170 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 100 -rs tests/harness/test_timing.py \
  tests/executor/test_executor_gpu.py tests/adversarial/test_adversarial_gpu.py
step 150 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 140 -rs tests/test_seeds.py -k "dsa or moe"
step 110 python3 benchmarks/harness_throughput.py --workloads 7
tar czf "$OUT/results_e.tgz" benchmarks/results 2>/dev/null
step 70 python3 benchmarks/timing_stability.py --repeats 5
tar czf "$OUT/results_e.tgz" benchmarks/results 2>/dev/null
LEFT=$(( END_BY - SECONDS - 10 ))
if [ "$LEFT" -gt 40 ]; then
  step "$LEFT" python3 benchmarks/baselines.py --baselines reference --budget-s $(( (LEFT - 15) / 3 )) \
    --name baselines_dsa_moe_reference_h200 --operators dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 \
    dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
fi
tar czf "$OUT/results_e.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
