#!/usr/bin/env bash
# Device call KA (2026-12-06): on an H200 call JD's prefill sweep first (the one-launch dispatch and the retained
# kernel beside it: scripts/sessions/gpu_session_jd.sh's step); then, on any Hopper card, the MoE's long-call GEMMs
# warp-specialised by Triton and GEMM1 with a Gluon producer warp (benchmarks/moe_gemm_ws.py; WS_ARGS: its options)
# against the retained kernels, side by side in one process (ratios, so an H100 answers too: the same SM count and
# FP8 rate per SM). Calls KA-KI of 2026-12-06 (all H100s): both lost (benchmarks/results/moe_gemm_ws_*_k{c,i}.md).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=540 [WS_TOKENS=...] [WS_ARGS=...] \
#   bash scripts/sessions/gpu_session_ka.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/moe_gemm_ws_*${CALL}*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  prefill_sweep_on_h200 || true
  # shellcheck disable=SC2086  # WS_ARGS: more options, split into words
  step "$(left)" python3 benchmarks/moe_gemm_ws.py --tokens ${WS_TOKENS:-14107 901} ${WS_ARGS:-} --name "$CALL"
) &
finish_session $!
