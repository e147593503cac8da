#!/usr/bin/env bash
# Device call V and its repeats (prepared 2026-11-30 for the next x2 session): the profiles the fifth session
# could not run, a measured MoE sub-space, then the last GDN prefill sweeps. Every step resumes or is cheap to
# repeat, so the same script is rerun (CALL=w, x, ...) until done; unpack each call's $OUT/results_<call>.tgz into
# the checkout (scripts/unpack_results.py) BEFORE the next call: the device copies the checkout's tracked traces
# over the machine's (2026-11-30 call T redid call S's pairs because of that).
#
# GPU 0, in order (each bounded by what is left before END_BY):
#   0. the fewer-launch variants (scripts/single_launch_probe.sh: the indexer's SELECT=fused, DSA attention's
#      COMBINE=fused, the MoE's ROUTE=triton: GPU tests, the indexer's 100-trial replay, side-by-side tables on
#      every workload; skipped once the three tables are complete).
#   1. MoE seed profile at seq_len 1 and 14,107 (where do 1.74 ms at one token go: the ~40 routing and
#      permutation torch ops and their host gaps, or the GEMMs?) -> benchmarks/results/profiles_v/profile_moe.json
#   2. fla's GDN prefill profile on 30 tokens (1 sequence), 28 tokens (2 sequences) and 8,192 tokens (20
#      sequences): 0.9 ms / 7.9 ms / 7.8 ms in the contest traces, whatever the length
#      -> benchmarks/results/profiles_v/profile_fla_prefill.json
#   3. DSA indexer probe part 3 (profiles of SELECT=radix, torch_topk and fused on 4x34 and 30x91 pages)
#      -> benchmarks/results/indexer_probe/profile_{radix,torch_topk,fused}.json
#   4. the MoE seed's sub-space COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=torch (25 points:
#      BLOCK_M x BLOCK_N x num_warps) on 7 workloads spread over seq_len 1..14,107 -> controller_space_moe_h200.json
#      (resumes point by point): the band question (BLOCK_M 16 for decode rows, 64-128 for the 3.5k-row
#      experts at seq_len 14,107?) and a fourth measured space for issue 5's controller efficiency.
# GPU 1: GDN prefill's reference, fla and retained kernel (sweeps_gpu1), then its torch.compile, then the two
#   GDN prefill seeds (token-recurrent, the contest's; chunked, never swept: 0.46 vs 0.44 ms on the 3-workload
#   gate of 2026-11-29) at their defaults on all 100 workloads, one after the other -> profiles_v/prefill_<seed>.jsonl
#   (the band crossover for a dispatch), then the gemm
#   seed's sub-space GROUP_M=8 num_stages=4 BLOCK_K=64 with num_warps free (184 points, ~3 s each: ~9 min;
#   resumes point by point) -> controller_space_gemm184_h200.json: a space where random search at 24 candidates
#   sees 13 % of the points (the 64-point table: 37 %), for issue 5's controller efficiency.
# Usage (carry .whl):  CALL=v END_BY=<limit - 60> bash scripts/sessions/gpu_session_v.sh; then, here, before the next
# call:  python scripts/unpack_results.py <files_at>/results_v.tgz  (merges traces per workload; plain tar
# would drop pairs another unpacked call added)
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
session_setup
keep_packed "results_${CALL}" benchmarks/results/traces_contest_h200 'benchmarks/results/contest_*_resumed*.*' \
  "$P" benchmarks/results/indexer_probe 'benchmarks/results/controller_space_moe_h200.json' \
  'benchmarks/results/controller_space_gemm184_h200.json' 'benchmarks/results/indexer_select3_all_h200.json' \
  'benchmarks/results/attn_combine_all_h200.json' 'benchmarks/results/moe_route_all_h200.json'
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  python3 - <<'PY' || step 540 bash scripts/single_launch_probe.sh
import json, sys
try:
    n = [len(json.load(open(f"benchmarks/results/{t}.json"))["latency_ms"])
         for t in ("indexer_select3_all_h200", "attn_combine_all_h200", "moe_route_all_h200")]
except (OSError, ValueError, KeyError):
    sys.exit(1)
sys.exit(0 if n == [3, 2, 2] else 1)
PY
  [ -f "$P/profile_moe.json" ] || step 150 python3 -m kernelopt.cli.main evaluate operator=$MOE \
    "solution='operators/$MOE/solutions/seeds/moe_grouped_fp8'" harness.time_reference=false \
    "workloads=[e05c6c03-5603-4a1c-b34c-dcce0ecaeea4,5e8dc11c-f2a9-42d5-8dce-9419cbf34d5d]" \
    output=$P/profiled_moe.jsonl profile=$P/profile_moe.json
  [ -f "$P/profile_fla_prefill.json" ] || step 150 python3 -m kernelopt.cli.main evaluate operator=$PRE \
    "solution='operators/$PRE/solutions/baselines/fla.json'" harness.time_reference=false \
    "workloads=[f581a9c7-0ec9-5b47-b168-d2c37bed7426,f2a9a537-21a7-5ae1-8adc-615197b221da,546aba8e-e39a-590a-8949-b2a4b5e09890]" \
    output=$P/profiled_fla_prefill.jsonl profile=$P/profile_fla_prefill.json
  [ -f benchmarks/results/indexer_probe/profile_fused.json ] || PARTS=3 step 200 bash scripts/indexer_probe.sh
  measure_space $MOE benchmarks/results/controller_space_moe_h200.json \
    --fix COMBINE=gather INTER_DTYPE=fp32 BLOCK_N2=128 num_stages=3 ROUTE=torch ) &
P0=$!
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_${CALL}_gpu1.log"
  SUFFIX=_gpu1 EXTRA="--baselines reference fla" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
  SUFFIX=_gpu1 EXTRA="--baselines torch_compile --no-retained" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
  for SEED in gdn_prefill_chunked gdn_prefill_recurrent; do  # the two prefill seeds side by side, all workloads
    evaluate_once "$P/prefill_${SEED}.jsonl" $PRE "operators/$PRE/solutions/seeds/$SEED"
  done
  measure_space gemm_n4096_k4096 benchmarks/results/controller_space_gemm184_h200.json \
    --fix GROUP_M=8 num_stages=4 BLOCK_K=64
) &
P1=$!
finish_session $P0 $P1
