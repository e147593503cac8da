#!/usr/bin/env bash
# Device call AH (prepared 2026-12-01 after call AG, for the next session): the retained kernels through the
# platform. Issues 7 and 9 ask for retained kernels "evaluated by the harness, logged as MLflow runs, promoted through
# the registry gates"; today's are contest sweeps of hand-made dispatches. `campaign.include` (new) gates them beside
# the seeds, so the evidence controller sweeps, repeats and promotes them through the same gates (the registry
# champion then *is* the retained kernel) and spends the rest of its budget trying to beat them. A campaign cut by
# its clock now still promotes its best fully passed solution (tagged provisional).
#   0. `python3 benchmarks/launch_overhead.py` (~1 min): what one more Triton launch costs a call on the official
#      timer, through `kernel[grid](...)` and through a warmed-up compiled kernel's launcher -> whether a low-overhead
#      launch path for the seeds' multi-kernel calls (MoE 5 launches, DSA 2, WY prefill 2) is worth building.
#   1. MoE: include the retained three-band dispatch -> profiles_v/moe_inc_campaign_champion.json,
#      benchmarks/results/campaign_moe_inc_ah_h200.{md,json}.
#   2. GDN prefill: include the retained dispatch recurrent_wy_401.json -> prefill_inc_*.
#   3. GDN decode: include the retained dispatch bv8_w8_w1_8.json -> decode_inc_*.
#   4. Profiles (torch.profiler + Nsight Compute) of the MoE retained dispatch at seq_len 1 and 14,107 (where do the
#      4.0 ms of the large band go: GEMM1 vs GEMM2 TFLOP/s) and of the WY prefill seed at 8,192 tokens.
# Then, here: `kernelopt export` files vs operators/<def>/retained/solution.json (same kernel -> write in the summary
# that the retained kernel is the registry champion of campaign <id>; a faster champion -> contest sweep it).
# Usage (carry .whl):  CALL=ah END_BY=<limit - 60> bash scripts/sessions/gpu_session_ah.sh [CAMP_S]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
CAMP_S=${1:-150}
keep_packed "results_${CALL}" "$P" 'benchmarks/results/campaign_*_h200.*' mlruns 'benchmarks/results/launch_overhead_*'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  [ -f benchmarks/results/launch_overhead_h200.json ] || step 120 python3 benchmarks/launch_overhead.py
  campaign $MOE moe_inc 7 "campaign.include=[operators/$MOE/solutions/dispatch/bf16_m16n64_m32_m64_80_901.json]"
  campaign $PRE prefill_inc 14 "campaign.include=[operators/$PRE/solutions/dispatch/recurrent_wy_401.json]"
  campaign $DEC decode_inc 7 "campaign.include=[operators/$DEC/solutions/dispatch/bv8_w8_w1_8.json]"
  profile_once moe_dispatch $MOE "operators/$MOE/solutions/dispatch/bf16_m16n64_m32_m64_80_901.json" \
    e05c6c03-5603-4a1c-b34c-dcce0ecaeea4,5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d
  profile_once wy_prefill $PRE "operators/$PRE/solutions/seeds/gdn_prefill_chunked_wy" \
    546aba8e-e39a-590a-8949-b2a4b5e09890
) &
finish_session $!
