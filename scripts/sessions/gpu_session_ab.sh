#!/usr/bin/env bash
# Device call AB and its repeats (prepared 2026-11-30 after call AA, for the next session). Every step resumes
# or is skipped once its output exists; rerun with CALL=ac, ... and unpack each call's archive first
# (python scripts/unpack_results.py <files_at>/results_<call>.tgz). Runs on one GPU or two.
# Queue 0:
#   1. the MoE band dispatch operators/<moe>/solutions/dispatch/block_m16_m32_901.json (the seed's defaults up to
#      seq_len 901, BLOCK_M=32 above) on all 19 workloads -> benchmarks/results/profiles_v/moe_dispatch_901.jsonl;
#      in call Y's sub-space table BLOCK_M=32 took seq_len 14,107 from 12.66 to 9.60 ms and lost 4-30 % below;
#      then here: python benchmarks/dispatch_plan.py --operator <moe> --traces
#      seed=benchmarks/results/traces_contest_h200/<moe>/retained.jsonl dispatch=<that file> --objective
#      mean_speedup. If it wins, it becomes the contest's retained kernel (contest_resume.sh, superseded/).
#   2. the 11 points of the MoE sub-space that failed every workload in call Y (BLOCK_M 64 and 128, no reason
#      kept then), again with --retry-failed: the table now keeps each failure's status and log tail.
# Queue 1 (first): the new two-kernel GDN prefill seed gdn_prefill_chunked_wy (a parallel WY prep kernel over
#   all chunks + a 5-dot serial state walk; CPU-checked only): its GPU seed tests, then all 100 workloads ->
#   profiles_v/prefill_ab_chunked_wy.jsonl; compare here with
#   python benchmarks/dispatch_plan.py --operator gdn_prefill_qk4_v8_d128_k_last --objective mean_speedup --traces
#   chunked=benchmarks/results/traces_contest_h200/gdn_prefill_qk4_v8_d128_k_last/superseded/retained_chunked_2026-11-30.jsonl
#   recurrent=benchmarks/results/profiles_v/prefill_y_recurrent.jsonl wy=benchmarks/results/profiles_v/prefill_ab_chunked_wy.jsonl
#   (target: fla's kernels take 190 us on the 8,192-token / 20-sequence workload, the fused chunked seed 1.29 ms).
# Then the indexer probe's part 3 (profiles of SELECT=radix, torch_topk and fused on 4x34 and 30x91 pages);
#   then the MoE seed at BLOCK_M=32 with INTER_DTYPE=bf16 on all 19 workloads -> profiles_v/moe_m32_bf16.jsonl
#   (GEMM2 ran at 58 TFLOP/s at seq_len 14,107 on the fp32 intermediate, split into two bf16 dots; bf16 halves
#   that work and traffic, within the MoE's contest tolerance atol 1 / rtol 0.3 / 90 % matched).
# Usage (carry .whl):  CALL=ab END_BY=<limit - 60> bash scripts/sessions/gpu_session_ab.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" "$P" benchmarks/results/indexer_probe 'benchmarks/results/controller_space_moe_h200.json'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/moe_dispatch_901.jsonl" $MOE "operators/$MOE/solutions/dispatch/block_m16_m32_901.json"
  measure_space $MOE benchmarks/results/controller_space_moe_h200.json \
    --fix COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=triton --retry-failed
) &
P0=$!
one_gpu_waits $P0
( export CUDA_VISIBLE_DEVICES=$(second_gpu); L="$OUT/session_${CALL}_gpu1.log"
  [ -f "$P/prefill_ab_chunked_wy.jsonl" ] || step "$(left)" python3 -m pytest -q -m gpu tests/test_seeds.py -k chunked_wy
  evaluate_once "$P/prefill_ab_chunked_wy.jsonl" gdn_prefill_qk4_v8_d128_k_last \
    "operators/gdn_prefill_qk4_v8_d128_k_last/solutions/seeds/gdn_prefill_chunked_wy"
  [ -f benchmarks/results/indexer_probe/profile_fused.json ] || PARTS=3 step "$(left)" bash scripts/indexer_probe.sh
  evaluate_once "$P/moe_m32_bf16.jsonl" $MOE "operators/$MOE/solutions/seeds/moe_grouped_fp8@BLOCK_M=32,INTER_DTYPE=bf16"
) &
P1=$!
finish_session $P0 $P1
