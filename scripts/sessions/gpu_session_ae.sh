#!/usr/bin/env bash
# Device call AE and its repeats (prepared 2026-12-01 after call AD, for the next session). One GPU, one queue in
# turn; every step resumes or is skipped once its output exists; rerun with CALL=af, ... and unpack each call's
# archive first (python scripts/unpack_results.py <files_at>/results_<call>.tgz).
#   1. MoE, `kernelopt evaluate` side by side on all 19 workloads: the bf16 dispatch bf16_m16n64_m32_80.json again
#      (call AD: 1.0808 vs 1.1619 ms for the retained point) and the three-band bf16_m16n64_m32_m64_80_901.json
#      (BLOCK_M 64 / 8 warps above 901 tokens: 5.30 vs 6.13 ms at seq_len 14,107 in the bf16 sub-space table)
#      -> profiles_v/moe_ae_{d80,d80_901}.jsonl. Compare with
#      python benchmarks/dispatch_plan.py --operator <moe> --objective mean_speedup --traces d80=... d80_901=...
#      and sweep the winner as the contest's retained kernel (move retained.* to superseded/, point
#      scripts/contest_resume.sh moe at it, run it in the next call).
#   2. GDN decode, in a scratch trace folder, benchmarks/contest.py side by side with fla on all 54 workloads:
#      the dispatch operators/<decode>/solutions/dispatch/bv8_w8_w1_8.json (the retained point BV=8 / 8 warps up to
#      batch 8, BV=8 / 1 warp above: in the decode table 15.02 vs 15.57 us at batch 48 and 19.04 vs 20.26 at 64,
#      where fla's kernel, which uses that shape, reads 0.83 of the memory roofline against our 0.77)
#      -> benchmarks/results/contest_decode_scratch_ae.md (issue 7's target: >= 1.10x vs fla on the mean).
#   2b. The new persistent GDN decode seed gdn_decode_persistent (PROGRAMS_PER_SM programs per SM walk the state
#      tiles in a software-pipelined loop, so loads of the next tile overlap the stores of this one; CPU-checked
#      only): its GPU seed tests, then all 54 workloads -> profiles_v/decode_ae_persistent.jsonl (compare with
#      the retained kernel's contest traces and the dispatch of step 2 by benchmarks/dispatch_plan.py).
#      Its space (60 points, 7 workloads) is measured last (step 6) -> controller_space_gdn_decode_persistent_h200.json.
#   3. MoE small-seq GEMM2 shape: the sub-space BLOCK_N2 x num_stages at the small band's point (BLOCK_M 16,
#      BLOCK_N 64, 4 warps, bf16, gather combine, Triton routing; the earlier tables fixed BLOCK_N2=128 and
#      num_stages=3: at T <= 80 GEMM2 streams each routed expert's 14 MiB of W2 through 7168/BLOCK_N2 programs per
#      row tile) on the 7 spread workloads -> controller_space_moe_bf16_m16_h200.json. (COMBINE=atomic is no help
#      there: it adds a zero-fill and a copy launch for the combine launch it removes.)
#   4. Profiles (torch.profiler kernel table + Nsight Compute metrics): the MoE retained point at seq_len 1 and
#      14,107 (GEMM2 ran at 58 TFLOP/s with the fp32 intermediate; what now with bf16?) -> profiles_v/profile_moe_bf16.json;
#      the WY GDN prefill seed on the 8,192-token / 20-sequence workload (fla's kernels: 190 us) -> profile_wy_prefill.json.
#   6. The persistent decode seed's space (above).
#   7. The two points of the fp32 MoE sub-space still unmeasured (--retry-failed; cut by call AD's limit).
# Usage (carry .whl):  CALL=ae END_BY=<limit - 60> bash scripts/sessions/gpu_session_ae.sh
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" "$P" 'benchmarks/results/controller_space_moe_*h200.json' \
  'benchmarks/results/controller_space_gdn_decode_persistent_h200.json' \
  'benchmarks/results/contest_decode_scratch*'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  evaluate_once "$P/moe_ae_d80.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16_m16n64_m32_80.json"
  evaluate_once "$P/moe_ae_d80_901.jsonl" $MOE "operators/$MOE/solutions/dispatch/bf16_m16n64_m32_m64_80_901.json"
  step "$(left)" python3 benchmarks/contest.py --operators $DEC --baselines fla \
    --solution "$DEC=operators/$DEC/solutions/dispatch/bv8_w8_w1_8.json" --budget-s 100000 \
    --name decode_scratch_ae --traces "$P/contest_scratch_ae" --resume
  [ -f "$P/decode_ae_persistent.jsonl" ] || step "$(left)" python3 -m pytest -q -m gpu tests/test_seeds.py -k persistent
  evaluate_once "$P/decode_ae_persistent.jsonl" $DEC "operators/$DEC/solutions/seeds/gdn_decode_persistent"
  measure_space $MOE benchmarks/results/controller_space_moe_bf16_m16_h200.json \
    --fix COMBINE=gather INTER_DTYPE=bf16 BLOCK_M=16 BLOCK_N=64 num_warps=4 ROUTE=triton
  profile_once moe_bf16 $MOE "operators/$MOE/solutions/seeds/moe_grouped_fp8@BLOCK_M=32,INTER_DTYPE=bf16" \
    e05c6c03-5603-4a1c-b34c-dcce0ecaeea4,5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d
  profile_once wy_prefill $PRE "operators/$PRE/solutions/seeds/gdn_prefill_chunked_wy" \
    546aba8e-e39a-590a-8949-b2a4b5e09890
  measure_space $DEC benchmarks/results/controller_space_gdn_decode_persistent_h200.json \
    --seed-kernel gdn_decode_persistent
  measure_space $MOE benchmarks/results/controller_space_moe_h200.json \
    --fix COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=triton --retry-failed
) &
finish_session $!
