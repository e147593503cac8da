#!/usr/bin/env bash
# Device call Z and its repeats (2026-11-30, after call Y). Every step resumes or is skipped once its output
# exists; rerun with CALL=aa, ... and unpack each call's archive first
# (python scripts/unpack_results.py <files_at>/results_<call>.tgz).
# GPU 0: the contest sweep of GDN prefill's new retained kernel, the chunked seed (contest_resume.sh; the
#   recurrent seed's traces moved to traces_contest_h200/<prefill>/superseded/), then the profiles owed since the
#   fifth session: the MoE seed at seq_len 1 and 14,107, fla's prefill on 30/28/8,192 tokens, the indexer
#   probe's part 3 (see gpu_session_v.sh for what each asks).
# GPU 1: the band dispatch recurrent_chunked_224.json on all 100 GDN prefill workloads
#   -> profiles_v/prefill_y_dispatch_224.jsonl (call Y measured the recurrent seed, prefill_y_recurrent.jsonl;
#   written trace by trace and resumed), then the rest of the gemm seed's 184-point sub-space
#   -> controller_space_gemm184_h200.json (64 points measured in call Y; resumes point by point).
# Usage (carry .whl):  CALL=z END_BY=<limit - 60> bash scripts/sessions/gpu_session_z.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' "$P" \
  benchmarks/results/indexer_probe 'benchmarks/results/controller_space_gemm184_h200.json'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  SUFFIX=_gpu0 EXTRA="--baselines fla" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
  [ -f "$P/profile_moe.json" ] || step "$(left)" python3 -m kernelopt.cli.main evaluate operator=$MOE \
    "solution='operators/$MOE/solutions/seeds/moe_grouped_fp8'" harness.time_reference=false \
    "workloads=[e05c6c03-5603-4a1c-b34c-dcce0ecaeea4,5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d]" \
    output=$P/profiled_moe.jsonl profile=$P/profile_moe.json
  [ -f "$P/profile_fla_prefill.json" ] || step "$(left)" python3 -m kernelopt.cli.main evaluate operator=$PRE \
    "solution='operators/$PRE/solutions/baselines/fla.json'" harness.time_reference=false \
    "workloads=[f581a9c7-0ec9-5b47-b168-d2c37bed7426,f2a9a537-21a7-5ae1-8adc-615197b221da,546aba8e-e39a-590a-8949-b2a4b5e09890]" \
    output=$P/profiled_fla_prefill.jsonl profile=$P/profile_fla_prefill.json
  [ -f benchmarks/results/indexer_probe/profile_fused.json ] || PARTS=3 step "$(left)" bash scripts/indexer_probe.sh
) &
P0=$!
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_${CALL}_gpu1.log"
  evaluate_once "$P/prefill_y_dispatch_224.jsonl" $PRE "operators/$PRE/solutions/dispatch/recurrent_chunked_224.json"
  measure_space gemm_n4096_k4096 benchmarks/results/controller_space_gemm184_h200.json \
    --fix GROUP_M=8 num_stages=4 BLOCK_K=64
) &
P1=$!
finish_session $P0 $P1
