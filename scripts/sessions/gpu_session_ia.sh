#!/usr/bin/env bash
# Device call IA (2026-12-05): the MoE long calls' GEMMs in Gluon (seed moe_grouped_fp8_q8gl, kernels in its
# gluon_kernels.py: one wgmma in flight while the other half's block-scale FMAs run), in this order:
#   1. benchmarks/moe_gemm1_gluon.py at 14,107 tokens: each Gluon GEMM alone against the retained Triton one on the
#      same synthetic inputs (check of the outputs, ring depths 3 / 4 for GEMM1 and GEMM2).
#   2. GPU tests of the seed (tests/test_seeds.py -k q8gl: seq_len 901 through the harness, GLUON on and off), then
#      the MoE workloads above 80 tokens (901 / 11,948 / 14,107) side by side: the retained dispatch, the same with
#      q8gl from 81 tokens, and with q8gl above 4,096 only; the retained one again last.
#   3. If a q8gl dispatch is the faster: its contest sweep (all 19 workloads).
# Steps 2-3 run only when step 1 finds a Gluon GEMM faster than its Triton one.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=ia END_BY=540 bash scripts/sessions/gpu_session_ia.sh
# Call IA (10:23 UTC): step 1 only, both Gluon GEMMs slower alone (GEMM1 1.243 with its permutation, GEMM2 1.048).
# Call IB:  WHEELS=.whl_eval CALL=ib END_BY=400 ALWAYS=1 bash scripts/sessions/gpu_session_ia.sh   (steps 2-3; queued
# 2026-12-05 10:37-11:18 UTC and never run: no machine could be started)
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/%s.json"
keep_call_results "benchmarks/results/moe_gemm1_gluon_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  # steps 2-3 only when a Gluon GEMM beat its Triton one alone (GEMM1 counted with its permutation), or with
  # ALWAYS=1 (call IB: step 1 skipped, the end-to-end figure and the GPU tests wanted anyway)
  [ -n "${ALWAYS:-}" ] || step 150 python3 benchmarks/moe_gemm1_gluon.py --tokens 14107 --stages 3 4 --stages2 3 4 \
    --name "$CALL"
  [ -n "${ALWAYS:-}" ] || python3 - benchmarks/results/moe_gemm1_gluon_*_"$CALL".json >>"$L" 2>&1 <<'PY' || exit 0
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["configs"] if r.get("ms")]
def best(gemm, kernel, extra=""):
    return min((r["ms"] + r.get(extra, 0) for r in rows if r["gemm"] == gemm and r["kernel"].startswith(kernel)),
               default=float("inf"))
g1, g2 = best(1, "gluon", "permute_ms") / best(1, "triton"), best(2, "gluon") / best(2, "triton")
print(f"=== Gluon / Triton alone: GEMM1 (with its permutation) {g1:.3f}, GEMM2 {g2:.3f}")
sys.exit(0 if min(g1, g2) < 1 else 1)
PY
  BEST=$(moe_seed_side_by_side q8gl moe_${CALL}_ _long.jsonl 81 100000 "$PAT" q8bp_80_retained q8bp_80_q8gl_4096 \
    q8bp_80_q8s2_4096_q8gl)
  sweep_unless_kept $MOE "$BEST" q8bp_80_retained "$PAT" moe_${BEST}_${CALL} "$P/contest_scratch_${CALL}"
) &
finish_session $!
