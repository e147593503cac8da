#!/usr/bin/env bash
# Device call CK (2026-12-02): MoE above 4,096 tokens (11,948 and 14,107), side by side: the retained dispatch (call
# CI: q8tw above 4,096 tokens) against the new seed moe_grouped_fp8_q8ws (q8tw with the long calls' GEMM loops
# warp-specialized by Triton: a TMA producer warp, the wgmma / scale-FMA consumer warp group) with both GEMMs
# specialized (a: GEMM1 on the permuted activations, as the pass needs), GEMM2 alone (b), GEMM1 alone (c). Why: the
# long GEMMs are 1,668 of the 2,055 us span at 14,107 tokens at ~760 FP8 TFLOP/s (call CH), GEMM1 one program per SM
# with issue slots 40 % busy (call CE); Triton 3.9 here compiles both loops warp-specialized for sm_90 (12 warps,
# 168 registers); whether the device's Triton 3.6 does is part of the question (a failed build is a recorded
# failure). The fastest that passed both: its contest sweep. No separate GPU test step (the evaluation checks every
# workload's output against the reference; the device time left is ~300 s).
# The seed and the q8ws dispatches were removed after this call (measured, not taken): they are at commit d6771fe.
# Usage (carry .whl, at d6771fe):  CALL=ck END_BY=220 bash scripts/sessions/gpu_session_ck.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  LONG=$(axis_band $MOE seq_len 4097 100000)
  PAT="$MD/q8rg_m16n128n2_64s4f_ci_q8tw4r1b_%s_80_4096.json"
  BEST=$(side_by_side $MOE moe_ck_ _long.jsonl "$LONG" "$PAT" q8tw4r1 q8wsa q8wsb q8wsc)
  echo "=== the band's fastest: $BEST" >> "$L"
  if [ "$BEST" != q8tw4r1 ]; then
    contest_sweep $MOE "$(printf "$PAT" "$BEST")" moe_${BEST}_ck "$P/contest_scratch_ck"
  fi
) &
finish_session $!
