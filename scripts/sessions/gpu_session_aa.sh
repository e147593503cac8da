#!/usr/bin/env bash
# Device call AA and its repeats (2026-11-30, after call Z). Every step resumes or is skipped once its output
# exists; rerun with CALL=ab, ... and unpack each call's archive first
# (python scripts/unpack_results.py <files_at>/results_<call>.tgz).
# GPU 0: the contest sweep of GDN prefill's new retained kernel, the band dispatch recurrent_chunked_224.json
#   (recurrent seed up to 224 tokens, chunked above; contest_resume.sh; the chunked seed's contest traces moved
#   to traces_contest_h200/<prefill>/superseded/: 1.7x slower than recurrent on the 27 workloads <= 49 tokens).
# GPU 1: the rest of the gemm seed's 184-point sub-space -> controller_space_gemm184_h200.json (143 of 184 after
#   calls Y-Z; resumes point by point), then the indexer probe's part 3 (profiles of SELECT=radix, torch_topk and
#   fused on 4x34 and 30x91 pages -> benchmarks/results/indexer_probe/profile_*.json).
# Usage (carry .whl):  CALL=aa END_BY=<limit - 60> bash scripts/sessions/gpu_session_aa.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' "$P" \
  benchmarks/results/indexer_probe 'benchmarks/results/controller_space_gemm184_h200.json'
# on a one-GPU machine the GPU-1 steps run after the GPU-0 ones, on GPU 0
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  SUFFIX=_gpu0 EXTRA="--baselines fla" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
) &
P0=$!
one_gpu_waits $P0
( export CUDA_VISIBLE_DEVICES=$(second_gpu); L="$OUT/session_${CALL}_gpu1.log"
  measure_space gemm_n4096_k4096 benchmarks/results/controller_space_gemm184_h200.json \
    --fix GROUP_M=8 num_stages=4 BLOCK_K=64
  [ -f benchmarks/results/indexer_probe/profile_fused.json ] || PARTS=3 step "$(left)" bash scripts/indexer_probe.sh
) &
P1=$!
finish_session $P0 $P1
