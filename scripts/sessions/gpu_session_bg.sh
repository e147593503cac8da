#!/usr/bin/env bash
# Device call BG (queued 2026-12-01, after call BF): evidence for the next two steps.
#   1. GDN prefill, side by side on the 19 workloads of 461-2,284 tokens (the retained dispatch's wy3f band, 0.1286
#      ms in call AY, 0.1398 in call BF with the same code: a ~10 % call-to-call spread there): wy3p at its defaults
#      and at C 32 (prep 4 warps, state walk BV 64 / 4 warps, output BV_O 128 / 4 warps), then the dispatch of
#      calls AY-BE (its band up to 2,284 tokens is the retained dispatch's since call BF, the same sources).
#      Also wy3p with BV 16 (state walk at 4 warps): the band has 1-4 sequences, so the state walk runs 8-32
#      programs per sequence at BV 32 on the 132 SMs; BV 16 doubles them (wy3 at BV 16 / 8 warps faulted in
#      Triton 3.6 code generation, call BA; here the state walk has 4). The same, side by side with wy3p's defaults,
#      on the long band's three few-sequence rows (2, 5 and 13 sequences: the retained dispatch runs the defaults).
#   0. A profile of the retained dispatch at 1,800 tokens / 3 sequences (wy3f: three launches): device time per
#      call against the official span (0.132-0.148 ms there in calls AY-BF); the rest is host time between launches.
#   2. MoE: a profile of the retained dispatch on two mid-band workloads (32 and 59 tokens). The 32-80-token band
#      decides the mean of per-workload speedups (11 of 19 workloads) and reads 2.56 TB/s (0.59 of the H200's
#      bandwidth roofline): which kernels and how far from the copy ceiling.
#   3. MoE, side by side on three mid-band workloads (32, 59, 80 tokens): the retained band's point of
#      moe_grouped_fp8_q8 (BLOCK_M 16, BLOCK_N 64, 4 warps, fast launches) and one move at a time from it:
#      BLOCK_N 32 (twice the GEMM1 programs: ~25 active experts x 32 N tiles of 64 is ~1.5 waves at 4 programs
#      an SM), 4 and 5 stages (more weight bytes in flight), BLOCK_N2 64 and 256 (GEMM2's programs).
# Usage (carry .whl):  CALL=bg END_BY=540 bash scripts/sessions/gpu_session_bg.sh
source "$(dirname "$0")/../gpu_env.sh" session
D=$PRE_DISPATCH
W=$PRE_SEEDS/gdn_prefill_chunked_wy3p
MID=$(prefill_band 402 2857)
FEW3=$(prefill_points 5709:2 3028:5 3999:13)  # the long band's few-sequence rows (0.52 / 0.22 / 0.25 ms, call BI)
C32="C=32,num_warps=4,BV=64,num_warps_h=4,BV_O=128,num_warps_o=4"
MOE_MID=6230e838-67ca-41dd-a9d6-6f36b7676c6b,eedc63b2-c03b-4cf2-8d16-1f46566e3af7
MOE_MID3=$MOE_MID,8f1ff9f1-6747-41d1-a1d8-2868cdacf893
Q8=operators/$MOE/solutions/seeds/moe_grouped_fp8_q8@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast
keep_packed "results_${CALL}" "$P"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  profile_once prefill_mid_retained $PRE "$D/recurrent_wy3f_wy3p_2284.json" 230601da-0a68-5cfd-acaf-2dea6a0fec92
  evaluate_once "$P/prefill_bg_wy3p_mid.jsonl" $PRE "$W" "$MID"
  evaluate_once "$P/prefill_bg_wy3p_c32_mid.jsonl" $PRE "$W@$C32" "$MID"
  evaluate_once "$P/prefill_bg_wy3p_bv16_mid.jsonl" $PRE "$W@BV=16,num_warps_h=4" "$MID"
  evaluate_once "$P/prefill_bg_wy3p_bv16_few3.jsonl" $PRE "$W@BV=16,num_warps_h=4" "$FEW3"
  evaluate_once "$P/prefill_bg_wy3p_few3.jsonl" $PRE "$W" "$FEW3"
  evaluate_once "$P/prefill_bg_retained_mid.jsonl" $PRE "$D/recurrent_wy3f_bv64_401.json" "$MID"
  profile_once moe_mid $MOE "operators/$MOE/solutions/dispatch/q8m16f_q8m64s4f_80.json" "$MOE_MID"
  for move in "" BLOCK_N=32 num_stages=4 num_stages=5 BLOCK_N2=64 BLOCK_N2=256; do
    tag=${move//=/}
    evaluate_once "$P/moe_bg_q8m16_${tag:-anchor}_mid3.jsonl" $MOE "$Q8${move:+,$move}" "$MOE_MID3"
  done
) &
finish_session $!
