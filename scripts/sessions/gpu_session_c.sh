#!/usr/bin/env bash
# Device call C (nvidia-h200-x2): 1 vs 2 GPU throughput, then the GDN decode and prefill contests
# (benchmarks/contest.py) in parallel, one per GPU. Usage on the lent 2-GPU H200 host (carry .whl): bash scripts/sessions/gpu_session_c.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
L="$OUT/session_c.log"
nvidia-smi --query-gpu=index,name,clocks.sm,temperature.gpu --format=csv | tee -a "$L"
step 150 python3 benchmarks/multi_gpu_throughput.py --gpus 2 --candidates 8 --repeats 2
GD=gdn_decode_qk4_v8_d128_k_last; GP=gdn_prefill_qk4_v8_d128_k_last
LEFT=$(( ${END_BY:-360} - SECONDS ))  # both contests in parallel, one per GPU, for what is left of the call
CUDA_VISIBLE_DEVICES=0 step $LEFT python3 benchmarks/contest.py --operators $GD --budget-s 45 --name gdn_decode_h200 \
  --traces /tmp/tr &
CUDA_VISIBLE_DEVICES=1 step $LEFT python3 benchmarks/contest.py --operators $GP --budget-s 45 --name gdn_prefill_h200 \
  --solution $GP=operators/$GP/solutions/seeds/gdn_prefill_recurrent --traces /tmp/tr &
wait
tar czf "$OUT/results_c.tgz" benchmarks/results /tmp/tr 2>/dev/null
ls -la "$OUT"
