#!/usr/bin/env bash
# DSA indexer questions for the next device call (on a GPU, after `source scripts/gpu_env.sh`; results under
# benchmarks/results/indexer_probe/), quickest and acceptance-relevant first, so a step cut at its limit keeps them:
# 1) Why contest.py read the same kernel ~15 % slower (median per workload) than `controller_efficiency.py --mode
#    measure` at >= 33 pages (benchmarks/results/h200_session_2026-11-30d.md; the inputs are the same: seq_lens and
#    block tables come from the workload UUID): the seed timed alone, then by contest.py on the same four workloads
#    (interleaved with the ~6 ms-a-call reference, as the sweep did), SM clock / temperature / power read between.
# 2) Issue 8's 100-trial replay on the near-tie-prone workloads: rows of 33-36 pages (2,049-2,304 tokens, where the
#    2,048th score sits among the row's lowest — ReLU zeros tie) and the two longest; 100 fresh inputs each, every
#    trial checked by the indexer's evaluator (reachable, unique ids, sorted recomputed scores).
# 3) Where the ~50 us of a long-context call go (scoring kernel vs selection): profiles (torch.profiler + ncu) of
#    the seed with SELECT=radix, torch_topk and fused on the longest row set (batch 30, 91 pages) and a short
#    one (batch 4, 34 pages).
# PARTS=13 (say) runs only parts 1 and 3 (default: all three). Part 2 at another seed point:
# AT='@SELECT=fused' TAG=_fused (writes replay100_fused.jsonl; scripts/single_launch_probe.sh does that).
# Another seed: SEED=operators/<def>/solutions/seeds/<name> TAG=_<name> (writes replay100_<name>.jsonl).
# Usage (about 5 minutes): GPU0_FIRST="bash scripts/indexer_probe.sh" GPU0_FIRST_S=360
#   PACK_EXTRA='benchmarks/results/indexer_probe' CALL=<x> END_BY=<limit-60> bash scripts/sessions/gpu_session_m.sh
set -u
cd "$(dirname "$0")/.." || exit 1
D=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
SEED=${SEED:-operators/$D/solutions/seeds/dsa_indexer_scores}
UU="dd728f92-98ba-5974-bcdc-e0e4d10c52d8 ead4d392-3071-53b8-9ed1-c5a081ae5f0e 1a594ddd-a4b6-5dfc-973b-435639b939dc
6e9056cc-914e-5d59-a96e-1d9a72176d93"
W="[$(echo $UU | tr ' ' ',')]"
R=benchmarks/results/indexer_probe
mkdir -p "$R"
PARTS=${PARTS:-123}
near_tie_workloads() {
  python3 - <<'PY'
import json
ws = [json.loads(l)["workload"] for l in open("operators/dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/workloads.jsonl")]
near = [w["uuid"] for w in ws if 33 <= w["axes"]["max_num_pages"] <= 36]
longest = sorted(ws, key=lambda w: -w["axes"]["batch_size"] * w["axes"]["max_num_pages"])[:2]
print("[" + ",".join(near + [w["uuid"] for w in longest]) + "]")
PY
}
ev() { python3 -m kernelopt.cli.main evaluate operator=$D "$@"; }
gpu() { nvidia-smi -i "${CUDA_VISIBLE_DEVICES:-0}" --query-gpu=clocks.sm,temperature.gpu,power.draw \
  --format=csv,noheader | sed "s/^/$1: /" | tee -a "$R/clocks.txt"; }
# 1)
if [[ $PARTS == *1* ]]; then
gpu "before alone"; ev "workloads=$W" "solution='$SEED'" output=$R/alone.jsonl
gpu "before contest"
# shellcheck disable=SC2086  # one argument per UUID
python3 benchmarks/contest.py --operators $D --solution $D=$SEED --baselines reference --workloads $UU \
  --budget-s 100000 --name indexer_probe --out $R
gpu "after contest"
fi
# 2)
if [[ $PARTS == *2* ]]; then
ev "workloads=$(near_tie_workloads)" "solution='$SEED${AT:-}'" harness.trials=100 harness.warmup=0 \
  harness.iterations=1 harness.time_reference=false output=$R/replay100${TAG:-}.jsonl
fi
# 3)
if [[ $PARTS == *3* ]]; then
  for SEL in radix torch_topk fused; do
    ev "workloads=[dd728f92-98ba-5974-bcdc-e0e4d10c52d8,6e9056cc-914e-5d59-a96e-1d9a72176d93]" \
      "solution='$SEED@SELECT=$SEL'" output=$R/profiled_$SEL.jsonl profile=$R/profile_$SEL.json
  done
fi
