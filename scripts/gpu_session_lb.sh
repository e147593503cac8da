#!/usr/bin/env bash
# Device call LB (2026-12-06, stop 56): on an H200 the next prefill sweep to adopt (prefill_sweep_on_h200); on any
# other card the device ceilings of a GPU kernelopt ships none for, end to end: `python -m kernelopt.harness.ceilings`
# (copy bandwidth, bf16 / fp8 matmul rates) into $OUT/ceilings_<call>.json, then a short offline campaign on
# rmsnorm_h4096 with an empty ceilings cache ($OUT/ceilings_cache), which must measure them itself before its analysis
# (events "measuring the ceilings" / "ceilings measured" in the log; bands.json with ceilings, roofline bounds and
# bottleneck classes), then `kernelopt doctor` (its "device ceilings" row reads the cache).
# Usage (carry .whl_eval and .whl_camp: the campaign needs MLflow, whose packed site is extracted beside the wheels):
#   WHEELS=.whl_eval CALL=<call> END_BY=560 bash scripts/gpu_session_lb.sh
source "$(dirname "$0")/gpu_env.sh" session
keep_call_results "$OUT/ceilings_cache" "mlruns/bands_${CALL}.json"
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
  prefill_sweep_on_h200 && exit 0
  [ -f .whl_camp/site.tar.xz ] && tar -C /tmp/site -xJf .whl_camp/site.tar.xz
  step 120 python3 -m kernelopt.harness.ceilings --out "$OUT/ceilings_${CALL}.json"
  export KERNELOPT_CEILINGS_DIR="$OUT/ceilings_cache"
  step "$(( $(left) - 60 ))" python3 -m kernelopt.cli.main optimize operator=rmsnorm_h4096 operator.workload_sample=5 \
    controller.max_candidates=4 controller.max_rounds=2 controller.wall_clock_s=200 campaign.name="ceilings_${CALL}"
  step 60 env CALL="$CALL" python3 - <<'PY'
import json, os, mlflow
mlflow.set_tracking_uri("sqlite:///mlruns/mlflow.db")
runs = mlflow.search_runs(search_all_experiments=True, filter_string="tags.`kernelopt.kind` = 'campaign'",
                          output_format="list")
for run in runs:
    try:
        path = mlflow.artifacts.download_artifacts(run_id=run.info.run_id, artifact_path="bands.json")
    except Exception as exc:  # a campaign cut before its analysis
        print("no bands.json on", run.info.run_id, exc)
        continue
    data = json.load(open(path))
    print("bands.json of", run.info.run_id, "device", data["device"], "ceilings", bool(data["ceilings"]))
    print(" bottlenecks:", {b: v["class"] + "/" + v["source"] for b, v in data["bottlenecks"].items()})
    print(" notes:", data["notes"])
    json.dump(data, open(os.path.join("mlruns", "bands_" + os.environ["CALL"] + ".json"), "w"), indent=1)
PY
  step 60 python3 -m kernelopt.cli.main doctor
) &
finish_session $!
