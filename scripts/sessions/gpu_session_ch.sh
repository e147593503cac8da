#!/usr/bin/env bash
# Device call CH (2026-12-02), in this order:
#   1. MoE up to 80 tokens (16 workloads), side by side: the retained dispatch (call CF) against its short point at
#      BLOCK_N 128 (q8rg at 4 and 8 warps; q8rd's descriptor GEMM2 there), the retained one again at the end. Why:
#      call CG, q8rd's descriptor GEMM2 at the short point (BLOCK_N 64) read 1.01-1.03 of the pointer kernel, so
#      the GEMM2's 2.54 TB/s (call CE) is not its address registers; at BLOCK_N 64 GEMM2's K step reads 64-byte
#      segments of 128 W2 rows per step (GEMM1 streams 128-byte segments at 3.64 TB/s). The fastest that passed all
#      in turn: its GEMM2's Nsight Compute sections at 59 tokens and its contest sweep. Also BLOCK_N 32: at 7-16
#      tokens 7-13 experts have rows, GEMM1 runs 224-416 programs at BLOCK_N 64 (1.7-3.2 waves of one per SM).
#   2. The host side of the retained dispatch's long calls (span_anatomy.py --host-calls: cProfile of 20 calls) at
#      901, 11,948 and 14,107 tokens: call CF's span anatomy has the GPU idle 84-133 us before GEMM1 and 46-90 us
#      before the tile count at 11,948-14,107 tokens.
# (Its side by side written as side_by_side_again after the call: the same steps and trace files.)
# Usage (carry .whl):  CALL=ch END_BY=480 bash scripts/sessions/gpu_session_ch.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/q8r%s_q8rt_m64s4f_q8tw4r1_80_4096.json"
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  BEST=$(side_by_side_again $MOE moe_ch_ _short.jsonl "$(axis_band $MOE seq_len 1 81)" "$PAT" g_m16s4f g_m16n128s4f \
    g_m16n128w8s4f d_m16n128s4f g_m16n32s4f)
  step 90 python3 benchmarks/span_anatomy.py --operator $MOE --solution "$(printf "$PAT" g_m16s4f)" \
    --workloads 1a4c6ba1 58a34f27 5e8dc11c --host-calls 20 --name moe_retained_host_ch
  if [ "$BEST" != g_m16s4f ]; then
    step 60 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$(printf "$PAT" "$BEST")" \
      --workloads eedc63b2 --kernels gemm2 --name moe_q8r${BEST}_59_ch
    contest_sweep $MOE "$(printf "$PAT" "$BEST")" moe_q8r${BEST}_ch "$P/contest_scratch_ch"
  fi
) &
finish_session $!
