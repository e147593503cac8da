#!/usr/bin/env bash
# Device call CD (queued 2026-12-02, after call CC), in this order:
#   1. MoE above 4,096 tokens (11,948 and 14,107), once more on another instance: q8tc (the tile count read as one copy
#      of the tile table) against the q8td dispatch it replaces (call CC: 0.929 / 0.973 side by side).
#   2. Nsight Compute sections (benchmarks/ncu_sections.py) lost by call CC (its pack missed them): the retained MoE
#      dispatch's kernels at 14,107 and 59 tokens, the retained DSA indexer at 91 pages, the retained GDN decode at
#      batch 64; and the retained GDN prefill at 8,192 tokens in 20 sequences.
# Usage (carry .whl):  CALL=cd END_BY=400 bash scripts/sessions/gpu_session_cd.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=operators/$MOE/solutions/dispatch
TC=$MD/q8rg_m16s4f_q8rt_m64s4f_q8tc_80_4096.json
TD=$MD/q8rg_m16s4f_q8rt_m64s4f_q8tdg_m64s4fy_80_4096.json
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  LONG=$(axis_band $MOE seq_len 4097 100000)
  evaluate_once "$P/moe_cd_tc_long.jsonl" $MOE "$TC" "$LONG"
  evaluate_once "$P/moe_cd_td_long.jsonl" $MOE "$TD" "$LONG"
  step 90 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$TC" --workloads 5e8dc11c \
    --kernels "gemm|combine|route" --name moe_retained_14107_cd
  step 90 python3 benchmarks/ncu_sections.py --operator $MOE --solution "$TC" --workloads eedc63b2 \
    --name moe_retained_59_cd
  step 60 python3 benchmarks/ncu_sections.py --operator $IDX \
    --solution operators/$IDX/solutions/dispatch/coop8_b16_acc.json --workloads 794cc736 --name indexer_retained_91_cd
  step 60 python3 benchmarks/ncu_sections.py --operator $DECODE \
    --solution operators/$DECODE/solutions/dispatch/bv8_w8_w1_8.json --workloads 40179013 --name decode_retained_64_cd
  step "$(left)" python3 benchmarks/ncu_sections.py --operator $GDN \
    --solution operators/$GDN/solutions/dispatch/recurrent_wy3b_401.json --workloads 546aba8e \
    --name prefill_retained_8192_cd
) &
finish_session $!
