#!/usr/bin/env bash
# Device call A (2026-11-29 session 2): GPU tests, ceilings, timing stability, GDN decode timing probe.
# Usage on the lent H200 (carry .whl): bash scripts/sessions/gpu_session_a.sh   -> logs and results under $OUT
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
L="$OUT/session_a.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a "$L"
GD=gdn_decode_qk4_v8_d128_k_last
step 45 python3 benchmarks/measure_ceilings.py
step 70 python3 -m kernelopt.cli.main evaluate operator=$GD solution=operators/$GD/solutions/seeds/gdn_decode_vtile \
  operator.workload_sample=3 output=/tmp/seed_traces.jsonl
step 80 python3 -m kernelopt.cli.main evaluate operator=$GD solution=operators/$GD/solutions/baselines/reference.json \
  operator.workload_sample=3 output=/tmp/ref_traces.jsonl
step 90 python3 benchmarks/timing_stability.py --repeats 5
GPU_TESTS="tests/adversarial/test_adversarial_gpu.py tests/harness/test_evaluate.py tests/harness/test_timing.py
 tests/executor/test_executor_gpu.py tests/test_inputs.py tests/test_baselines.py tests/test_seeds.py"
step 230 python3 -m pytest -m gpu -q -p no:cacheprovider --continue-on-collection-errors --timeout 120 $GPU_TESTS
tail -c 4000 /tmp/seed_traces.jsonl > "$OUT/gdn_seed_traces_tail.jsonl" 2>/dev/null
tar czf "$OUT/results_a.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
