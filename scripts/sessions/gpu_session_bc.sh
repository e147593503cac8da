#!/usr/bin/env bash
# Device call BC (2026-12-01): the new seed gdn_prefill_chunked_wy3v (wy3f with chunk slots found 64 sequences a
# step, operators/_solution_lib/chunk_slots.py, instead of a walk over every sequence at the start of each prep and
# output program) against wy3f, both at BV 64 (the retained dispatch's point for >= 9 sequences), side by side on
# three long workloads of 2, 20 and 57 sequences (5,709 and 8,192 tokens: the ids below; the script's first
# version said 13 sequences for the first); then the GPU tests (chunk_slots; wy3v bit for bit wy3).
# Usage (carry .whl):  CALL=bc END_BY=<limit - 20> bash scripts/sessions/gpu_session_bc.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
S=operators/$PRE/solutions/seeds
W3=f21736ff-e9f3-5762-8cb9-7c0c581891b8,546aba8e-e39a-590a-8949-b2a4b5e09890,d68188c3-4457-5544-b7d8-41509f7fe1e9
keep_packed "results_${CALL}" "$P"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/prefill_bc_wy3v_bv64.jsonl" $PRE "$S/gdn_prefill_chunked_wy3v@BV=64" "$W3"
  evaluate_once "$P/prefill_bc_wy3f_bv64.jsonl" $PRE "$S/gdn_prefill_chunked_wy3f@BV=64" "$W3"
  step "$(left)" python3 -m pytest -q -m gpu tests/test_chunk_slots.py tests/test_gdn_prefill_wy3.py
) &
finish_session $!
