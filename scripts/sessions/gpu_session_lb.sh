#!/usr/bin/env bash
# Device call LB (2026-12-06, stop 56): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200); on any
# other card the device ceilings of a GPU kernelopt ships none for, end to end: `python -m kernelopt.harness.ceilings`
# (copy bandwidth, bf16 / fp8 matmul rates) into $OUT/ceilings_<call>.json, then a short offline campaign on
# rmsnorm_h4096 with an empty ceilings cache ($OUT/ceilings_cache), which must measure them itself before its analysis
# (events "measuring the ceilings" / "ceilings measured" in the log; its summary by benchmarks/campaign_summary.py
# with the ceilings and bottleneck classes of bands.json), then `kernelopt doctor` (its "device ceilings" row reads
# the cache). Call LB read bands.json with a few lines of Python of its own instead of the summary
# (benchmarks/results/bands_rmsnorm_h100_lb.json is that file).
# Usage (carry .whl_eval and .whl_camp: the campaign needs MLflow, whose packed site is extracted beside the wheels):
#   WHEELS=.whl_eval CALL=<call> END_BY=560 bash scripts/sessions/gpu_session_lb.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "$OUT/ceilings_cache" "benchmarks/results/campaign_ceilings_${CALL}_h100.*"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  prefill_sweep_on_h200 && exit 0
  [ -f .whl_camp/site.tar.xz ] && tar -C /tmp/site -xJf .whl_camp/site.tar.xz
  step 120 python3 -m kernelopt.harness.ceilings --out "$OUT/ceilings_${CALL}.json"
  export KERNELOPT_CEILINGS_DIR="$OUT/ceilings_cache"
  step "$(( $(left) - 60 ))" python3 -m kernelopt.cli.main optimize operator=rmsnorm_h4096 operator.workload_sample=5 \
    controller.max_candidates=4 controller.max_rounds=2 controller.wall_clock_s=200 campaign.name="ceilings_${CALL}"
  step 60 python3 benchmarks/campaign_summary.py rmsnorm_h4096 --name "campaign_ceilings_${CALL}_h100" \
    --command "kernelopt optimize operator=rmsnorm_h4096 ... campaign.name=ceilings_${CALL} (scripts/sessions/gpu_session_lb.sh)"
  step 60 python3 -m kernelopt.cli.main doctor
) &
finish_session $!
