#!/usr/bin/env bash
# Device call F (2026-11-30, nvidia-h200-x2): the 1-vs-2-GPU throughput of a fixed candidate batch (workers
# warmed up on a candidate outside the batch), then, one per GPU in parallel: harness throughput (incl. a new
# candidate on a warm worker vs isolated) on GPU 0 and the DSA contests (seed vs reference vs torch.compile,
# traces kept) on GPU 1. Usage (carry .whl):  bash scripts/sessions/gpu_session_f.sh [CANDIDATES]
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu_env.sh
L="$OUT/session_f.log"
END_BY=${END_BY:-570}
step 300 python3 benchmarks/multi_gpu_throughput.py --gpus 2 --candidates "${1:-12}" --workloads 7 --repeats 2
tar czf "$OUT/results_f.tgz" benchmarks/results 2>/dev/null
LEFT=$(( END_BY - SECONDS - 15 ))
IX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
AT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_f_gpu0.log"
  step $(( LEFT < 200 ? LEFT : 200 )) python3 benchmarks/harness_throughput.py --workloads 7 ) &
( export CUDA_VISIBLE_DEVICES=1; L="$OUT/session_f_gpu1.log"
  B=$(( (LEFT - 40) / 6 ))
  step "$LEFT" python3 benchmarks/contest.py --operators $AT $IX --budget-s $B --name dsa_h200 \
    --solution $AT=operators/$AT/solutions/seeds/dsa_attn_splitk $IX=operators/$IX/solutions/seeds/dsa_indexer_scores \
    --traces /tmp/tr_dsa ) &
wait
mkdir -p benchmarks/results/traces_dsa_h200 && cp -r /tmp/tr_dsa/* benchmarks/results/traces_dsa_h200/ 2>/dev/null
tar czf "$OUT/results_f.tgz" benchmarks/results 2>/dev/null
ls -la "$OUT"
