#!/usr/bin/env bash
# Device call ND (2026-12-06, stop 58): the integrity guard's new checks on a GPU, on any card (no sweep: this
# stop's device time ran short). Since commits 208a89f-dbccd1e the guard also watches functions changed in place,
# harness constants, torch / numpy / cupti modules in sys.modules, torch.cuda's functions and classes, cupti-python's
# functions (imported before the snapshot on a GPU), torch's mode stacks and trace hooks - a false "harness
# tampering" there would reject honest GPU candidates. So: the adversarial corpus on the GPU (every cheat and honest
# kernel through the harness on cuda), then benchmarks/contest.py on GDN decode's two smallest workloads (the
# retained CUDA kernel, fla - which imports torch._dynamo -, the reference and torch.compile interleaved in one
# persistent worker), then fla's prefill host profile (gpu_session_nc.sh's question) with what time is left.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=280 bash scripts/sessions/gpu_session_nd.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  step "$(upto 120)" python3 -m pytest -q -p no:cacheprovider --timeout 110 -rs \
    tests/adversarial/test_adversarial_corpus.py
  step "$(upto 110)" python3 benchmarks/contest.py --operators "$DEC" --max-workloads 2 \
    --name "guard_${CALL}" --out "$OUT"
  step "$(left)" python3 benchmarks/span_anatomy.py --operator "$PRE" \
    --solution "operators/$PRE/solutions/baselines/fla.json" --workloads f581a9c7 f2a9a537 \
    --warmup 3 --iterations 5 --host-calls 3 --host-top 25 --name "prefill_fla_${CALL}"
) &
finish_session $!
