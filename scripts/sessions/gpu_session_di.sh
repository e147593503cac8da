#!/usr/bin/env bash
# Device call DI (queued 2026-12-03 after call DH, for the next session). One GPU, one queue:
#   1. the contest sweep with fla on all 54 GDN decode workloads of the four-band dispatch
#      lean4_bv8_w8_lean4_leannew_1_8_16 (the retained three-band dispatch with gdn_decode_lean at BV 4 for batch 1:
#      1.98 vs 2.08 us in call DH's table; the retained dispatch read 1.093x vs fla, ~1.096x expected)
#      -> benchmarks/results/contest_decode_lean4_bv8_w8_lean4_leannew_1_8_16_di.md (traces $P/contest_scratch_di);
#      adopt it (benchmarks/adopt_retained.py, and replace the contest folder's fla traces by this call's, as in
#      call DH) only if its ratio to fla in this call beats the retained dispatch's 1.093x.
#   1b. benchmarks/decode_copy_ceiling.py at batch 1 / 4 / 8 over gdn_decode_lean's small-batch points (BV 4 / 8 x
#      2 / 4 warps, output from the new state; call DH measured 1 and 8 warps only) beside the retained kernel
#      -> benchmarks/results/decode_copy_ceiling_h200_di.{md,json}: batch 1-8 is where the 1.10x goal's last 2.4 us
#      are (0.1 us per workload at batch 1-8 would do);
#   2. the retained decode dispatch through a campaign and the registry gates needs mlflow (.whl_idx, not .whl_eval):
#      a separate call, `WHEELS=.whl_idx CALL=dj END_BY=540 CAMP_S=180 bash scripts/gpu_campaigns_retained.sh
#      gdn_decode` (name gdn_decode_ret: no champion file of that name yet), if the checkout plus .whl_idx still
#      fits the device tool's 64 MiB (45.6 MB + 20.6 MB on 2026-12-03: call DH's first attempt with .whl_df, 20.5 MB,
#      was refused as too large).
#   3. (added 2026-12-03, second session) Nsight Compute sections (warp stalls, memory workload, speed of light) of
#      the retained kernel at batch 8 and 32 and of gdn_decode_lean at BV 4 at batch 1: what holds the decode
#      0.3-0.5 us above a tile copy of its bytes with the same grid (calls DG / DH)
#      -> benchmarks/results/ncu_sections_*_decode_*_di.{json,md}.
# Usage (carry .whl_eval: pydantic, hydra, omegaconf, cupti, fla_core and their few dependencies, see gpu_env.sh):
#   WHEELS=.whl_eval CALL=di END_BY=420 bash scripts/sessions/gpu_session_di.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.*"
NCU_SECTIONS=(SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats SchedulerStats)
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  decode_fla_sweep lean4_bv8_w8_lean4_leannew_1_8_16 "decode_lean4_bv8_w8_lean4_leannew_1_8_16_${CALL}" \
    "$P/contest_scratch_${CALL}"
  S="operators/$DEC/solutions/seeds/gdn_decode_lean"
  step "$(left)" python3 benchmarks/decode_copy_ceiling.py --name "$CALL" --batches 1,4,8 --no-fla \
    --solution "retained=operators/$DEC/retained/solution.json" --solution "bv4_w2=$S@BV=4,num_warps=2,OUT_FROM_OLD=0" \
    --solution "bv4_w4=$S@BV=4,num_warps=4,OUT_FROM_OLD=0" --solution "bv8_w2=$S@num_warps=2,OUT_FROM_OLD=0" \
    --solution "bv8_w4=$S@num_warps=4,OUT_FROM_OLD=0" --solution "bv4_w1=$S@BV=4,OUT_FROM_OLD=0"
  step "$(left)" python3 benchmarks/ncu_sections.py --operator "$DEC" --solution "operators/$DEC/retained/solution.json" \
    --workloads 68e0ad57 e5e44a31 --sections "${NCU_SECTIONS[@]}" --name "decode_retained_b8_b32_${CALL}"
  step "$(left)" python3 benchmarks/ncu_sections.py --operator "$DEC" --solution "$S@BV=4" \
    --workloads c3fe5bc7 --sections "${NCU_SECTIONS[@]}" --name "decode_lean_bv4_b1_${CALL}"
) &
finish_session $!
