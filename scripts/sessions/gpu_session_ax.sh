#!/usr/bin/env bash
# Device call AX (prepared 2026-12-01 for the next session): the GDN prefill wy3 floor and the campaign's BV 16 failure.
#   0. GPU tests of the new seed gdn_prefill_chunked_wy3f (wy3's kernels through fastlaunch.py; tests/test_seeds.py).
#   1. Side by side on the 50 workloads of 64-2,284 tokens: wy3f, then wy3 (the retained dispatch's long band), then
#      the recurrent seed on the 31 of 64-460 tokens: does the fast-launch copy lower wy3's 0.06-0.11 ms floor
#      (call AR) and move the recurrent/wy3 edge below 401 tokens? (then: `kernelopt dispatch` with the new edge,
#      `dispatch/recurrent_wy3f_401.json` is the 401-token composition, and a contest sweep as in call AS)
#   2. wy3 at C 64 / BV 16 / 8 warps (the campaign's `more_parallelism` candidate of call AT, 0/2 on the GPU, PASSED
#      in the interpreter) on one 8,192-token workload: its status and log are in the trace.
#   3. Profiles (torch.profiler + Nsight Compute) of wy3 on the 8,192-token / 20-sequence workload (fla's kernels:
#      190 us of device time there, call Z; the wy3 dispatch 0.56 ms on the official timer).
#   4. wy3 at BV 64 (the widest state-walk tile that fits 8 warps at C 64: W, K read by 2 instead of 4 V tiles) then
#      at its defaults (BV 32) on the workloads of >= 3,999 tokens (resumable: a cut step continues next call).
# Usage (carry .whl):  CALL=ax END_BY=<limit - 60> bash scripts/sessions/gpu_session_ax.sh
# Then: CALL=ap END_BY=540 bash scripts/gpu_campaigns_retained.sh dsa_attention moe
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" "$P"
S=operators/$PRE/solutions/seeds
MID=$(prefill_band 64 2285)
SHORT=$(prefill_band 64 461)
LONG8K=546aba8e-e39a-590a-8949-b2a4b5e09890
LONGEST=$(prefill_band 3999 1000000)
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 150 python3 -m pytest -q -m gpu tests/test_seeds.py tests/test_gdn_prefill_wy3.py -k "wy3f or wy3_matches"
  evaluate_once "$P/prefill_ax_wy3f_mid.jsonl" $PRE "$S/gdn_prefill_chunked_wy3f" "$MID"
  evaluate_once "$P/prefill_ax_wy3_mid.jsonl" $PRE "$S/gdn_prefill_chunked_wy3" "$MID"
  evaluate_once "$P/prefill_ax_recurrent_short.jsonl" $PRE "$S/gdn_prefill_recurrent" "$SHORT"
  evaluate_once "$P/prefill_ax_wy3_bv16_c64.jsonl" $PRE "$S/gdn_prefill_chunked_wy3@BV=16" "$LONG8K"
  profile_once wy3_prefill $PRE "$S/gdn_prefill_chunked_wy3" "$LONG8K"
  evaluate_once "$P/prefill_ax_wy3_bv64_long.jsonl" $PRE "$S/gdn_prefill_chunked_wy3@BV=64" "$LONGEST"
  evaluate_once "$P/prefill_ax_wy3_long.jsonl" $PRE "$S/gdn_prefill_chunked_wy3" "$LONGEST"
) &
finish_session $!
