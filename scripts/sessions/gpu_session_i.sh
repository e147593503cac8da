#!/usr/bin/env bash
# Device call I (2026-11-30, nvidia-h200-x2). GPU 0: the GPU checks of the device-side input draws, a
# profiled evaluation (torch.profiler + Nsight Compute) of the GDN decode retained kernel, then the
# controller-efficiency latency tables of GDN decode (whole seed space) and gemm (a 64-point sub-space).
# GPU 1: contest sweeps resumed into one trace folder (benchmarks/results/traces_contest_h200, several calls
# add up to full sweeps). Usage (carry .whl):  bash scripts/sessions/gpu_session_i.sh [OPERATOR_SHORT_NAMES...]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
END_BY=${END_BY:-555}
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_i_gpu0.log"
  step 120 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 100 -rs tests/harness/test_device_random.py \
    tests/test_inputs.py -k "gpu_draws or device_inputs"
  step 150 python3 -m kernelopt.cli.main evaluate operator=gdn_decode_qk4_v8_d128_k_last \
    solution=operators/gdn_decode_qk4_v8_d128_k_last/retained/solution.json limit=3 \
    profile=benchmarks/results/profile_gdn_decode_retained_h200.json output=/tmp/tr_prof.jsonl
  step 120 python3 benchmarks/controller_efficiency.py --mode measure --operator gdn_decode_qk4_v8_d128_k_last \
    --workloads 7 --table benchmarks/results/controller_space_gdn_decode_h200.json
  step "$(left)" python3 benchmarks/controller_efficiency.py --mode measure --operator gemm_n4096_k4096 \
    --workloads 7 --fix GROUP_M=8 num_stages=4 BLOCK_K=64 num_warps=4 \
    --table benchmarks/results/controller_space_gemm_h200.json ) &
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_i_gpu1.log"
  step "$(left)" bash scripts/contest_resume.sh ${@:-moe dsa_attention gdn_decode dsa_indexer gdn_prefill} ) &
wait
tar czf "$OUT/results_i.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
