#!/usr/bin/env bash
# The fewer-launch variants added 2026-11-30 after call U, measured (on a GPU, after `source scripts/gpu_env.sh`):
# the DSA indexer's SELECT=fused (the row's last scoring program runs the radix select), DSA attention's
# COMBINE=fused (the token's last split program merges the partials) and the MoE seed's ROUTE=triton (routing
# and permutation in two Triton launches instead of ~55 torch ones). The hypothesis they test: a multi-launch
# call's timed span (first kernel start to last kernel end) includes the host's time to issue each later
# launch, which at these kernel sizes is most of it (the indexer's two-launch call reads a ~38 us floor at
# 33-45 pages whatever the batch; its one-launch pass-through rows ~1.5 us; the attention ~28 us at 1-2 tokens;
# the MoE ~1.6 ms at 1-80 tokens).
#   1. GPU tests of both (cross-program memory ordering: the selection/merge reads what other programs wrote);
#   2. the indexer's 100-trial replay with SELECT=fused (indexer_probe.sh part 2, replay100_fused.jsonl);
#   3. side-by-side tables at each seed's default point, every workload: torch_topk / radix / fused
#      (benchmarks/results/indexer_select3_all_h200.json, 3 x 128) and launch / fused
#      (benchmarks/results/attn_combine_all_h200.json, 2 x 23), ROUTE torch / triton
#      (benchmarks/results/moe_route_all_h200.json, 2 x 19). Tables resume point by point.
# If a fused variant wins: make it the seed's default, move that operator's contest traces of the old default
# under superseded/, resweep (scripts/contest_resume.sh dsa_indexer | dsa_attention), retained_report.py.
# Usage: bash scripts/single_launch_probe.sh   (about 8 minutes on an H200)
set -u
cd "$(dirname "$0")/.." || exit 1
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
python3 -m pytest -q -m gpu tests/test_indexer_select.py tests/test_seeds.py tests/test_moe_routing.py \
  -k "select or indexer or dsa_attn or moe" 2>&1 \
  | tail -5
AT='@SELECT=fused' TAG=_fused PARTS=2 bash scripts/indexer_probe.sh
python3 benchmarks/controller_efficiency.py --mode measure --operator $IDX --workloads 0 \
  --fix BN=64 BLOCKS=2 DOT=tf32 num_warps=4 num_stages=2 --table benchmarks/results/indexer_select3_all_h200.json
python3 benchmarks/controller_efficiency.py --mode measure --operator $ATT --workloads 0 \
  --fix BK=32 NUM_SPLITS=16 num_warps=8 num_stages=2 --table benchmarks/results/attn_combine_all_h200.json
MOE=moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
python3 benchmarks/controller_efficiency.py --mode measure --operator $MOE --workloads 0 --fix BLOCK_M=16 BLOCK_N=128 BLOCK_N2=128 COMBINE=gather INTER_DTYPE=fp32 num_warps=4 num_stages=3 \
  --table benchmarks/results/moe_route_all_h200.json
