#!/usr/bin/env bash
# Device call QB (prepared 2026-12-06, stop 62). Call QA ran on an H100 (22:33 UTC): the one-launch GDN prefill
# kernel compiled by the device's Triton 3.6 spills 1,768 bytes a thread at its dispatched point (C 64, BV 64, BV_O
# 64, 4 warps; 976 with Triton 3.9 here), 392 at BV 32 / 8 warps; its launch options were never timed against each
# other (only the defaults, walks first and BV 32 with walks first, call JA). So, on every card:
# 1. through the harness on 8 contest workloads of the band it serves (61-832 tokens, their own sequence splits;
#    benchmarks/contest.py --candidates, interleaved per workload): against the defaults, the seed
#    gdn_prefill_onelaunch_pf (its walk loads each chunk's inputs one chunk ahead: the ~4.4 us a chunk of the longest
#    sequence that call PA's traces show) at the defaults and at 8 warps, and the seed itself at 8 warps;
# 2. benchmarks/prefill_seed_points.py: eight points of the seed's space side by side in one process, interleaved in
#    rounds, on the same workloads (its tables rewritten after every round);
# 3. Nsight Compute's sections (warp stalls) of the kernel at 61 / 134 / 401 tokens, at the defaults and at 8 warps.
# (Reordered 2026-12-07 with ~700 s of device time left: the harness's verdict first; no best-point pass.)
# First, only on an H200: call PA's adoption sweep resumed (4 workloads left) and the retained dispatch on 49-1,376
# tokens beside it, as QA would have (then, here: benchmarks/adopt_retained.py, see gpu_session_qa.sh).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qb.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md" "benchmarks/results/prefill_seed_points_*${CALL}*" \
  "benchmarks/results/contest_onelaunch_points_${CALL}.json"
ONE="$PRE_SEEDS/gdn_prefill_onelaunch" AHEAD="$PRE_SEEDS/gdn_prefill_onelaunch_pf"
POINTS=(defaults num_warps=8 BV=32,num_warps=8 BV=32,BV_O=32,num_warps=8 BV_O=128,num_warps=8 C=32
        C=32,BV=32,num_warps=8 C=32,BV=32,BV_O=32,num_warps=2)
( gpu0_log
  ( CALL=pa; prefill_sweep_on_h200 fla ) || true  # on an H200 only (status 1 elsewhere)
  band=$(prefill_points 61:1 116:1 185:2 341:2 401:4 525:1 661:3 832:4 | tr , ' ')
  # first the harness's verdict (official timing, correctness, interleaved per workload) on real workloads of the
  # band: the seed whose walk loads a chunk ahead (gdn_prefill_onelaunch_pf: bit-equal outputs, more registers) at
  # the defaults and at 8 warps, and the one-launch seed itself at 8 warps, against its defaults
  # shellcheck disable=SC2086  # $band: space-separated uuids
  step "$(upto 200)" python3 benchmarks/contest.py --operators "$PRE" --no-baselines --solution "$PRE=$ONE" \
    --candidates "ahead=$AHEAD" "ahead_w8=$AHEAD@num_warps=8" "w8=$ONE@num_warps=8" --workloads $band \
    --budget-s 100000 --name "onelaunch_points_${CALL}" --traces "$P/contest_points_${CALL}" --resume
  # then eight points of the seed's space side by side in one process, in rounds (its tables rewritten each round)
  # shellcheck disable=SC2086
  step "$(upto 240)" python3 benchmarks/prefill_seed_points.py --seed gdn_prefill_onelaunch --workloads $band \
    --points "${POINTS[@]}" --rounds 3 --name "onelaunch_${CALL}"
  for point in defaults num_warps=8; do
    sol=$ONE; [ "$point" = defaults ] || sol="$ONE@$point"
    step "$(upto 120)" python3 benchmarks/ncu_sections.py --operator "$PRE" --solution "$sol" \
      --workloads 6b2797e9 8362ab94 a105e775 --kernels onelaunch --name "onelaunch_${point//[=,]/_}_${CALL}"
  done
) &
finish_session $!
