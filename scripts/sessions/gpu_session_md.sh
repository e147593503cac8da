#!/usr/bin/env bash
# Device calls MD and ME (2026-12-06, stop 57; MD found fla REJECTED for torch._dynamo's own rebinding of torch.manual_seed, ME ran after the fix): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200); on any
# other card the contest path after executor.keep_built (a persistent worker now keeps the 8 most recently used
# solutions built and releases older ones): benchmarks/contest.py on GDN decode's 4 smallest workloads, the retained
# kernel and every baseline (reference, torch.compile, fla) interleaved per workload in one worker, so each
# candidate is built again only if released (none should be: 4 < 8); the environment of each label's last
# evaluation ('builds': others held, keep) and its seconds spent are printed from the contest JSON.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=480 bash scripts/sessions/gpu_session_md.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results  # the contest files are written under $OUT: they come back by themselves
( h200_sweep_first && exit 0
  step "$(( $(left) - 30 ))" python3 benchmarks/contest.py --operators "$DEC" --max-workloads 4 \
    --name "keep_built_${CALL}" --out "$OUT"
  step 30 python3 - "$OUT/contest_keep_built_${CALL}.json" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
def walk(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("builds", "spent_s"):
                print(f"{path}/{k}: {v}")
            walk(v, f"{path}/{k}")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, f"{path}[{i}]")
walk(data)
PY
) &
finish_session $!
