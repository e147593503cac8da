#!/usr/bin/env bash
# Device call MB (2026-12-06, stop 57): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200); on any
# other card the campaign's own ceilings measurement through the executor (commit addca1a:
# ProcessExecutor.measure_ceilings starts the child on the first GPU lane, the parent reads its stdout JSON). Call MA
# ran the campaign with the H100's shipped ceilings, so it measured nothing: here the device copy of the checkout loses
# its shipped file for this card first (kernelopt/analysis/ceilings/<slug>.json; the machine's copy only) and the
# ceilings cache is empty, so the campaign must measure, keep the figures in the cache, and use them in bands.json;
# then `kernelopt doctor` reads them back from the cache.
# Usage (carry .whl_eval and .whl_camp):  WHEELS=.whl_eval CALL=<call> END_BY=300 bash scripts/sessions/gpu_session_mb.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/campaign_ceilings_${CALL}_*"
( h200_sweep_first && exit 0
  slug=$(python3 -c "from kernelopt.analysis.roofline import cached_ceilings_path as c
import torch; print(c(torch.cuda.get_device_name(0)).name)")
  rm -v "kernelopt/analysis/ceilings/$slug" >> "$L" 2>&1
  export KERNELOPT_CEILINGS_DIR="$OUT/ceilings_cache"
  step 150 python3 -m kernelopt.cli.main optimize operator=rmsnorm_h4096 operator.workload_sample=3 \
    controller.max_candidates=2 controller.max_rounds=1 controller.wall_clock_s=110 campaign.name="ceilings_${CALL}"
  step 40 python3 benchmarks/campaign_summary.py rmsnorm_h4096 --name "campaign_ceilings_${CALL}_h100" \
    --command "kernelopt optimize operator=rmsnorm_h4096 ... campaign.name=ceilings_${CALL} (scripts/sessions/gpu_session_mb.sh)"
  step 60 python3 -m kernelopt.cli.main doctor
  ls -la "$KERNELOPT_CEILINGS_DIR" >> "$L"; cat "$KERNELOPT_CEILINGS_DIR"/*.json >> "$L"
) &
finish_session $!
