#!/usr/bin/env bash
# Device call BH (queued 2026-12-01): the new GDN prefill seed gdn_prefill_chunked_wy3b (wy3p's kernels with bf16
# scratch and bf16 dots after the prep, as fla's kernels; in the interpreter, with the GPU's rounding emulated,
# within 0.0039 of the fp32 reference on the output and 0.0035 on the final state).
#   1. GPU tests: wy3b at INTER fp32 tf32-close to wy3, at bf16 within the contest's 0.01; its seed points.
#   2. Side by side on the six long workloads of calls BE-BF: wy3p at its defaults (the anchor), then wy3b at its
#      defaults (bf16 scratch and states), with fp32 states, and at C 32.
#   3. wy3b's kernels alone (benchmarks/gdn_prefill_kernel_sweep.py --scratch bf16) at 8,192 tokens / 35 sequences:
#      warps, V tiles and chunk per kernel, as calls BD-BE did for wy3v's fp32 kernels.
# Usage (carry .whl):  CALL=bh END_BY=540 bash scripts/sessions/gpu_session_bh.sh
source "$(dirname "$0")/../gpu_env.sh" session
S=$PRE_SEEDS
EDGE6=$(prefill_points 3028:5 5709:2 3999:13 8192:20 8192:35 8192:57)
keep_packed "results_${CALL}" "$P" "benchmarks/results/gdn_prefill_kernel_sweep_*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  step 180 python3 -m pytest -q -m gpu tests/test_gdn_prefill_wy3.py tests/test_seeds.py -k "wy3b or wy3_matches"
  evaluate_once "$P/prefill_bh_wy3p_edge6.jsonl" $PRE "$S/gdn_prefill_chunked_wy3p" "$EDGE6"
  evaluate_once "$P/prefill_bh_wy3b_edge6.jsonl" $PRE "$S/gdn_prefill_chunked_wy3b" "$EDGE6"
  evaluate_once "$P/prefill_bh_wy3b_h32_edge6.jsonl" $PRE "$S/gdn_prefill_chunked_wy3b@STATES=fp32" "$EDGE6"
  evaluate_once "$P/prefill_bh_wy3b_c32_edge6.jsonl" $PRE \
    "$S/gdn_prefill_chunked_wy3b@C=32,num_warps=4,BV=64,num_warps_h=4,BV_O=128,num_warps_o=4" "$EDGE6"
  step "$(left)" python3 benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:35 --scratch bf16 --name b35 --configs \
    prep,64,-,8,1,- prep,32,-,4,1,- prep,32,-,4,1,128 h,64,32,4,1,- h,64,64,4,1,- h,64,64,8,1,- h,64,128,8,1,- \
    h,64,64,4,2,- h,32,64,4,1,- h,32,128,4,1,- h,32,64,2,1,- o,64,64,4,1,- o,64,128,4,1,- o,64,128,8,1,- \
    o,32,64,4,1,- o,32,128,4,1,- o,32,64,2,1,-
) &
finish_session $!
