#!/usr/bin/env bash
# Resume the contest sweeps of the named operators (short names) into benchmarks/results/traces_contest_h200;
# each run skips the (candidate, workload) pairs already traced there, so bounded device calls add up to full
# sweeps. Rebuild the tables anywhere with:  python3 benchmarks/contest.py --operators DEF --solution ... \
#   --from-traces benchmarks/results/traces_contest_h200 --name <short>_h200
# Pairs traced as REJECTED are evaluated again (RETRY="STATUS ..." to change; RETRY=" " for none).
# To split one operator's candidates over two GPUs: EXTRA="--baselines reference --no-retained" SUFFIX=_gpu1 on
# one and EXTRA="--baselines torch_compile fla" SUFFIX=_gpu0 on the other (each resumes its own label files;
# SUFFIX keeps their result tables apart).
# Usage (on the GPU machine, after `source scripts/gpu_env.sh`):  bash scripts/contest_resume.sh moe dsa_attention ...
set -u
cd "$(dirname "$0")/.." || exit 1
T=benchmarks/results/traces_contest_h200
for NAME in "$@"; do
  case $NAME in
    moe) D=moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048; S=$D=operators/$D/solutions/dispatch/q8bp_80_retained.json;;
    dsa_attention) D=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64; S=$D=operators/$D/solutions/dispatch/heads_s64_s16_2.json;;
    dsa_indexer) D=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64; S=$D=operators/$D/solutions/dispatch/hist_hb10_b2_45.json;;
    gdn_decode) D=gdn_decode_qk4_v8_d128_k_last; S=$D=operators/$D/solutions/dispatch/picked_dr.json;;
    gdn_prefill) D=gdn_prefill_qk4_v8_d128_k_last; S=$D=operators/$D/solutions/dispatch/recurrent_ahead_461_1376_s2bv32.json;;
    *) echo "contest_resume.sh: unknown operator '$NAME' (moe dsa_attention dsa_indexer gdn_decode gdn_prefill)"; exit 2;;
  esac
  echo "=== $(date +%T) contest $NAME"
  python3 benchmarks/contest.py --operators $D ${S:+--solution $S} --budget-s 100000 \
    --name "${NAME}_h200_resumed${SUFFIX:-}" --traces $T --resume --retry ${RETRY:-REJECTED} ${EXTRA:-}
done
