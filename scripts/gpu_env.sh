# Source on the lent GPU machine: installs the carried wheels (.whl/) into /tmp/site, sets paths, a local
# (sqlite) tracking store and the `step` helper the session scripts use.
# Usage (device tool, carry .whl):  source scripts/gpu_env.sh
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/tmp/pip.log 2>&1 \
  || { tail -5 /tmp/pip.log; echo "wheel install failed"; }
export PYTHONPATH=/tmp/site:$PWD
export PYTHONUNBUFFERED=1
kernelopt() { python3 -m kernelopt.cli.main "$@"; }
export MLFLOW_TRACKING_URI=
# step SECONDS CMD...: run CMD bounded by SECONDS, output appended to $L (default $OUT/session.log),
# start/exit lines also on stdout; never aborts the calling script.
# A limit under 10 s skips CMD (timeout 0 would mean no limit at all, and the call would end unpacked).
step() {
  local t=$1; shift
  local log=${L:-$OUT/session.log}
  if [ "$t" -lt 10 ]; then echo "=== $(date +%T) skipped, ${t}s left: $*" | tee -a "$log"; return 0; fi
  echo "=== $(date +%T) [limit ${t}s] $*" | tee -a "$log"
  timeout -k 5 "$t" "$@" >>"$log" 2>&1
  echo "=== rc=$? $(date +%T)" | tee -a "$log"
}
# left: seconds left before END_BY (default 540 s after the calling script started), 10 s kept for packing.
left() { echo $(( ${END_BY:-540} - SECONDS - 10 )); }
