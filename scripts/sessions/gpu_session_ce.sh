#!/usr/bin/env bash
# Device call CE (queued 2026-12-02, after call CD):
#   Nsight Compute sections again (benchmarks/ncu_sections.py): call CD's parse dropped every metric row (ncu's rows stop
#   before the rule columns that end its header; fixed, and the whole CSV is now kept in the JSON): the retained
#   MoE dispatch's kernels at 14,107 and 59 tokens, the retained DSA indexer at 91 pages, GDN decode at batch 64,
#   GDN prefill at 8,192 tokens in 20 sequences.
# Usage (carry .whl):  CALL=ce END_BY=120 bash scripts/sessions/gpu_session_ce.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
TC=$MD/q8rg_m16s4f_q8rt_m64s4f_q8tc_80_4096.json
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $MOE --solution "$TC" --workloads 5e8dc11c \
    --kernels "gemm|combine|route" --name moe_retained_14107_ce
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $MOE --solution "$TC" --workloads eedc63b2 \
    --name moe_retained_59_ce
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $IDX \
    --solution operators/$IDX/solutions/dispatch/coop8_b16_acc.json --workloads 794cc736 --name indexer_retained_91_ce
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $DECODE \
    --solution operators/$DECODE/solutions/dispatch/bv8_w8_w1_8.json --workloads 40179013 --name decode_retained_64_ce
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $GDN \
    --solution operators/$GDN/solutions/dispatch/recurrent_wy3b_401.json --workloads 546aba8e \
    --name prefill_retained_8192_ce
) &
finish_session $!
