#!/usr/bin/env bash
# Device call C (nvidia-h200-x2): 1 vs 2 GPU throughput, timing stability, persistent vs isolated
# harness throughput. Usage on the lent 2-GPU H200 host (carry .whl): bash scripts/gpu_session_c.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
export MLFLOW_TRACKING_URI=
L="$OUT/session_c.log"
step() {  # step SECONDS CMD... : bounded, logged, never aborts the script
  local t=$1; shift
  echo "=== $(date +%T) [limit ${t}s] $*" | tee -a "$L"
  timeout -k 5 "$t" "$@" >>"$L" 2>&1
  echo "=== rc=$? $(date +%T)" | tee -a "$L"
}
nvidia-smi --query-gpu=index,name,clocks.sm,temperature.gpu --format=csv | tee -a "$L"
step 170 python3 benchmarks/multi_gpu_throughput.py --gpus 2 --candidates 8 --repeats 2
step 80 python3 benchmarks/timing_stability.py --repeats 5
step 150 python3 benchmarks/harness_throughput.py --workloads 7
tar czf "$OUT/results_c.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
