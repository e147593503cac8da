#!/usr/bin/env bash
# Device call CG (2026-12-02), in this order:
#   1. GPU tests of the new seed moe_grouped_fp8_q8rd (q8rg over q8tw in one package, the short calls' GEMM2 on q8tw's
#      descriptor kernel: call CE's Nsight Compute sections at 59 tokens have the short calls' GEMM2, q8's pointer
#      kernel, streaming W2 at 2.54 TB/s against GEMM1's 3.64; compiled for sm_90 here it takes 255 registers at the
#      short point (BLOCK_M 16, 4 warps), q8tw's descriptor kernel 64: benchmarks/results/sm90_resources_moe.md).
#   2. MoE up to 80 tokens (16 workloads), side by side: the retained dispatch (call CF; q8rg there) against q8rd with
#      GEMM2 on descriptors at 4 warps (fp32 rows), at 8 warps, with bf16 rows, and at BLOCK_N2 64; the retained one
#      again at the end (the drift between its two runs). The fastest that passed all in turn: its GEMM2's Nsight
#      Compute sections at 59 tokens, its span anatomy at 7 / 59 tokens, and its contest sweep.
# (Its steps written as side_by_side_if after the call: the same steps and trace files.)
# Usage (carry .whl):  CALL=cg END_BY=560 bash scripts/sessions/gpu_session_cg.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8r%s_q8rt_m64s4f_q8tw4r1_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(side_by_side_if 200 "python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k q8rd" \
    $MOE moe_cg_ _short.jsonl "$(axis_band $MOE seq_len 1 81)" "$PAT" g_m16s4f d_m16s4f d_m16s4fw8 d_m16s4fy \
    d_m16s4fn64)
  if [ "$BEST" != g_m16s4f ]; then
    step 90 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$(printf "$PAT" "$BEST")" \
      --workloads eedc63b2 --kernels gemm2 --name moe_q8r${BEST}_59_cg
    step 60 python3 benchmarks/span_anatomy.py --operator $MOE --solution "$(printf "$PAT" "$BEST")" \
      --workloads b8f4f012 eedc63b2 --name moe_q8r${BEST}_cg
    contest_sweep $MOE "$(printf "$PAT" "$BEST")" moe_q8r${BEST}_cg "$P/contest_scratch_cg"
  fi
) &
finish_session $!
