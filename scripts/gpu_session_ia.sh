#!/usr/bin/env bash
# Device call IA (2026-12-05): the MoE long calls' GEMMs in Gluon (seed moe_grouped_fp8_q8gl, kernels in its
# gluon_kernels.py: one wgmma in flight while the other half's block-scale FMAs run), in this order:
#   1. benchmarks/moe_gemm1_gluon.py at 14,107 tokens: each Gluon GEMM alone against the retained Triton one on the
#      same synthetic inputs (check of the outputs, ring depths 3 / 4 for GEMM1 and GEMM2).
#   2. GPU tests of the seed (tests/test_seeds.py -k q8gl: seq_len 901 through the harness, GLUON on and off), then
#      the MoE workloads above 80 tokens (901 / 11,948 / 14,107) side by side: the retained dispatch, the same with
#      q8gl from 81 tokens, and with q8gl above 4,096 only; the retained one again last.
#   3. If a q8gl dispatch is the faster: its contest sweep (all 19 workloads).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ia END_BY=540 bash scripts/gpu_session_ia.sh
source "$(dirname "$0")/gpu_env.sh" session
PAT="$MOE_DISPATCH/%s.json"
keep_call_results "benchmarks/results/moe_gemm1_gluon_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 benchmarks/moe_gemm1_gluon.py --tokens 14107 --stages 3 4 --stages2 3 4 --name "$CALL"
  BEST=$(moe_seed_side_by_side q8gl moe_${CALL}_ _long.jsonl 81 100000 "$PAT" q8bp_80_retained q8bp_80_q8gl_4096 \
    q8bp_80_q8s2_4096_q8gl)
  sweep_unless_kept $MOE "$BEST" q8bp_80_retained "$PAT" moe_${BEST}_${CALL} "$P/contest_scratch_${CALL}"
) &
finish_session $!
