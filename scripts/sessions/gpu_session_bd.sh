#!/usr/bin/env bash
# Device call BD (prepared 2026-12-01 for the next session): the wy3v GDN prefill dispatch.
#   0. GPU tests: chunk_slots.py's lookup, wy3v bit for bit wy3 (cut by the end of call BC), the seeds' GPU points.
#   1. benchmarks/gdn_prefill_kernel_sweep.py: wy3v's three kernels alone over warps / stages / register caps / V
#      tiles / chunk at 8,192 tokens with 20 sequences (the prep kernel: 169 us, 249 registers, 12.5 % occupancy).
#   2. Contest sweep of solutions/dispatch/recurrent_wy3v_bv64_401.json (the retained dispatch's shape with wy3v:
#      chunk slots found 64 sequences a step; call BC: 1.16x over wy3f at 57 sequences) over all 100 workloads,
#      resumable into profiles_v/contest_scratch_bd (the retained one's traces: call AY, 0.1535 ms).
#   3. Side by side with what is left: the retained dispatch on the workloads of >= 2,857 tokens, after the sweep.
# Usage (carry .whl):  CALL=bd END_BY=540 bash scripts/sessions/gpu_session_bd.sh
source "$(dirname "$0")/../gpu_env.sh" session
D=$PRE_DISPATCH
LONG=$(prefill_band 2857 1000000)
keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_prefill_wy3v_*" \
  "benchmarks/results/gdn_prefill_kernel_sweep_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_chunk_slots.py tests/test_gdn_prefill_wy3.py tests/test_seeds.py \
    -k "chunk_slots or wy3_matches or wy3v"
  step 120 python3 benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:20
  step "$(( $(left) - 120 ))" python3 benchmarks/contest.py --operators $PRE --no-baselines \
    --solution "$PRE=$D/recurrent_wy3v_bv64_401.json" --budget-s 100000 --name prefill_wy3v_${CALL} \
    --traces $P/contest_scratch_bd --resume
  evaluate_once "$P/prefill_bd_retained_long.jsonl" $PRE "$D/recurrent_wy3f_bv64_401.json" "$LONG"
) &
finish_session $!
