# Source on the lent GPU machine: installs the carried wheels (.whl/, or the folder $WHEELS) into /tmp/site, sets
# paths, a local (sqlite) tracking store and the `step` helper the session scripts use.
# Usage (device tool, carry .whl):  source scripts/gpu_env.sh
# The device tool sends at most 64 MiB (the checkout's files plus what is carried): on 2026-12-03 the checkout held
# 45.4 MB and .whl 21.6 MB, so a call that needs no flash-linear-attention carries a copy without it instead:
#   mkdir -p .whl_idx; cp .whl/*.whl .whl_idx/; rm .whl_idx/fla_core-*.whl   (and /.whl_idx/ in .git/info/exclude)
#   carry .whl_idx and run with WHEELS=.whl_idx
# and a call that needs fla but no mlflow (mlflow 3.17 does not import without databricks_sdk) a copy without that:
#   mkdir -p .whl_df; cp .whl/*.whl .whl_df/; rm .whl_df/databricks_sdk-*.whl   (carry .whl_df, WHEELS=.whl_df)
# and when even that is too large (call DH, 2026-12-03: checkout 45.6 MB), only what evaluation and fla import:
#   mkdir -p .whl_eval; for w in pydantic- pydantic_core annotated_types typing_inspection hydra_core omegaconf antlr4 \
#     cupti fla_core cachetools importlib_metadata; do cp .whl/$w*.whl .whl_eval/; done   (WHEELS=.whl_eval)
# and when the checkout plus .whl_idx no longer fit (2026-12-03: 46 + 20.6 MB), the same wheels unpacked and
# xz-compressed into one archive (13.5 MB): bash scripts/pack_site.sh .whl_idx .whl_camp   (WHEELS=.whl_camp)
# On 2026-12-04 the checkout's tracked files reached 55.6 MB: with .whl_camp a call no longer fits (calls FA-FE carried
# .whl_eval, 4 MB: evaluation, contest sweeps, kernel sweeps and span anatomies need no mlflow).
# Since then the older call outputs are packed (scripts/results_archive.py, `make results` unpacks them): the
# tracked files are 36.5 MB, and .whl_camp (13.5 MB, campaigns with MLflow) fits again.
# A session script's one-line start:  source "$(dirname "$0")/gpu_env.sh" session  (also: set -u, cd to the
# checkout, session_setup).
if [ "${1:-}" = session ]; then set -u; cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1; fi
# card_is NAME: does this machine's (first) GPU name contain NAME (e.g. H200)? The device tool may answer an
# `nvidia-h200` call with an H100 (calls JB-JF of 2026-12-06).
card_is() { case "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" in *"$1"*) return 0;; esac
  return 1; }
# ONLY_CARD=H200: a session script stops here, before installing anything, on a machine whose GPU name lacks it (a
# call whose figures join H200 tables then runs nothing and costs ~35 s instead of its whole command: calls JE-JF).
if [ "${1:-}" = session ] && [ -n "${ONLY_CARD:-}" ] && ! card_is "$ONLY_CARD"; then
  echo "=== ONLY_CARD=$ONLY_CARD: this machine has $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null \
    | head -1 | grep . || echo 'no GPU'): nothing run"
  exit 0
fi
# A folder holding site.tar.xz (the wheels unpacked, then xz-compressed: 13.5 MB against .whl_idx's 20.6; see
# scripts/pack_site.sh) is extracted instead of pip-installing its wheels.
if [ -f "${WHEELS:-.whl}/site.tar.xz" ]; then
  mkdir -p /tmp/site && tar -C /tmp/site -xJf "${WHEELS:-.whl}/site.tar.xz" || echo "site archive extraction failed"
else
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site "${WHEELS:-.whl}"/*.whl \
    >/tmp/pip.log 2>&1 \
    || { tail -5 /tmp/pip.log; echo "wheel install failed"; }
fi
export PYTHONPATH=/tmp/site:$PWD
export PYTHONUNBUFFERED=1
kernelopt() { python3 -m kernelopt.cli.main "$@"; }
export MLFLOW_TRACKING_URI=
# The contest definitions by short name, for the session scripts (an older script sets its own, to the same names).
MOE=moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
IDX=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
ATT=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
GDN=gdn_prefill_qk4_v8_d128_k_last
DECODE=gdn_decode_qk4_v8_d128_k_last
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
# last_step_passed: did the last `step` of this log ($L) exit 0 (e.g. a call's GPU tests, before its timings)
last_step_passed() { tail -1 "${L:-$OUT/session.log}" | grep -q "^=== rc=0 "; }
# evaluate_once FILE OPERATOR SOLUTION [UUID,...]: `kernelopt evaluate` of SOLUTION (a path under the checkout) on
# every workload of OPERATOR (or those UUIDs) into FILE (written trace by trace as FILE.part and renamed when the
# run ends, failures recorded too), bounded by what is left before END_BY; skipped once FILE exists. A call cut short keeps FILE.part
# (pack it), and the next call's run resumes it (`resume=true`) instead of starting again.
evaluate_once() {
  local f=$1 op=$2 sol=$3 only=${4:+"workloads=[$4]"}
  [ -f "$f" ] && return 0
  step "$(left)" bash -c "python3 -m kernelopt.cli.main evaluate operator=$op \"solution='$sol'\" $only \
    harness.time_reference=false output=$f.part resume=true; mv $f.part $f"
}
# contest_sweep OP SOLUTION NAME FOLDER [BASELINE...]: the resumable contest sweep of SOLUTION (with those baselines
# side by side, none by default, and the solutions in $CANDIDATES, space-separated LABEL=PATH words, as more rows)
# over all of OP's workloads (or only the uuids in $ONLY, space-separated), traces under FOLDER, table
# benchmarks/results/contest_NAME.md; a later call resumes it as it stands.
contest_sweep() {
  local op=$1 sol=$2 name=$3 traces=$4 base=(--no-baselines) only=() more=()
  shift 4
  [ $# -gt 0 ] && base=(--baselines "$@")
  # shellcheck disable=SC2206  # ONLY is a space-separated uuid list, CANDIDATES space-separated LABEL=PATH words
  [ -n "${ONLY:-}" ] && only=(--workloads $ONLY)
  # shellcheck disable=SC2206
  [ -n "${CANDIDATES:-}" ] && more=(--candidates $CANDIDATES)
  step "$(left)" python3 benchmarks/contest.py --operators "$op" "${base[@]}" "${only[@]}" --solution "$op=$sol" \
    "${more[@]}" --budget-s 100000 --name "$name" --traces "$traces" --resume
}
# profile_once NAME OPERATOR SOLUTION UUID,...: `kernelopt evaluate` of SOLUTION on those workloads with the
# torch.profiler / Nsight Compute profile kept -> $P/profile_NAME.json (traces $P/profiled_NAME.jsonl), bounded
# by what is left before END_BY; skipped once the profile exists.
profile_once() {
  local name=$1 op=$2 sol=$3 uuids=$4
  [ -f "$P/profile_$name.json" ] && return 0
  step "$(left)" python3 -m kernelopt.cli.main evaluate operator=$op "solution='$sol'" harness.time_reference=false \
    "workloads=[$uuids]" output=$P/profiled_$name.jsonl profile=$P/profile_$name.json
}
# axis_band OP AXIS LO HI: OP's workloads of LO <= AXIS < HI, as a comma-separated uuid list
axis_band() { python3 scripts/pick_workloads.py band "$@"; }
# every_nth OP AXIS N: every Nth of OP's workloads ordered by AXIS (then the other axes, then uuid), from the first:
# a spread over the sizes, as a space-separated uuid list
every_nth() { python3 scripts/pick_workloads.py every-nth "$@"; }
# prefill_band LO HI: the GDN prefill workloads of LO <= total_seq_len < HI
prefill_band() { axis_band gdn_prefill_qk4_v8_d128_k_last total_seq_len "$1" "$2"; }
# fastest_in_turn OP PREFIX SUFFIX FIRST NAME...: of the traces $P/<PREFIX><name><SUFFIX>, FIRST and then each NAME in
# turn that holds traces and that benchmarks/trace_agreement.py --faster prefers over the best so far (it passed every
# workload the best passed and is faster over them); prints that name (FIRST when no other wins). An empty file is
# one that was never written to (trace_agreement refuses it): a later name replaces it as a missing one does
fastest_in_turn() {
  local op=$1 prefix=$2 suffix=$3 best=$4 v; shift 4
  for v in "$@"; do
    [ -s "$P/$prefix$v$suffix" ] || continue
    if [ ! -s "$P/$prefix$best$suffix" ] || [ "$(python3 benchmarks/trace_agreement.py --operator "$op" \
        --a "$P/$prefix$best$suffix" --b "$P/$prefix$v$suffix" --faster)" = b ]; then best=$v; fi
  done
  echo "$best"
}
# side_by_side OP PREFIX SUFFIX UUIDS PATTERN FIRST NAME...: evaluate_once each of FIRST and NAME... (its solution: the
# printf PATTERN with %s the name) on the workloads UUIDS into $P/<PREFIX><name><SUFFIX>, then print
# fastest_in_turn's pick (the step lines go to stderr, so BEST=$(side_by_side ...) gets the name alone)
side_by_side() {
  local op=$1 prefix=$2 suffix=$3 uuids=$4 pattern=$5 v; shift 5
  for v in "$@"; do
    # shellcheck disable=SC2059  # the pattern is the format
    evaluate_once "$P/$prefix$v$suffix" "$op" "$(printf "$pattern" "$v")" "$uuids" >&2
  done
  fastest_in_turn "$op" "$prefix" "$suffix" "$@"
}
# side_by_side_again OP PREFIX SUFFIX UUIDS PATTERN FIRST NAME...: side_by_side, the fastest's name logged to $L,
# then FIRST (the kernel in place) evaluated again into $P/<PREFIX><FIRST><SUFFIX without .jsonl>_again.jsonl: run
# first and last, its drift within the call bounds the ratios; the fastest's name alone on stdout
side_by_side_again() {
  local best
  best=$(side_by_side "$@")
  echo "=== the fastest of $2*$3: $best" >> "${L:-$OUT/session.log}"
  # shellcheck disable=SC2059  # the pattern is the format
  evaluate_once "$P/$2$6${3%.jsonl}_again.jsonl" "$1" "$(printf "$5" "$6")" "$4" >&2
  echo "$best"
}
# side_by_side_if SECONDS 'TEST COMMAND' OP PREFIX SUFFIX UUIDS PATTERN FIRST NAME...: the test command (e.g. a new
# seed's GPU tests) as a step of at most SECONDS, then side_by_side_again of FIRST and, only if the tests passed,
# NAME... (a variant whose tests failed is not timed); the fastest's name alone on stdout
side_by_side_if() {
  local t=$1 cmd=$2; shift 2
  step "$t" bash -c "$cmd" >&2
  if last_step_passed; then side_by_side_again "$@"; else side_by_side_again "${@:1:6}"; fi
}
# A new MoE seed's GPU tests (tests/test_moe_q8.py and tests/test_seeds.py, -k SEED), then side_by_side_again over the
# MoE workloads with LO <= seq_len < HI (the variants only when the tests passed):
# moe_seed_side_by_side SEED PREFIX SUFFIX LO HI PATTERN FIRST NAME...
moe_seed_side_by_side() {
  local seed=$1 prefix=$2 suffix=$3 uuids
  uuids=$(axis_band "$MOE" seq_len "$4" "$5")
  shift 5
  side_by_side_if 200 "python3 -m pytest -q -m gpu tests/test_moe_q8.py tests/test_seeds.py -k $seed" \
    "$MOE" "$prefix" "$suffix" "$uuids" "$@"
}
# The DSA indexer calls' comparison: each of FIRST (the kernel in place) and NAME... (its solution: the output of the
# function SOLUTION_OF given the name) evaluated on UUIDS into $P/indexer_<CALL>_<name>.jsonl, FIRST again last into
# indexer_<CALL>_<FIRST>_again.jsonl, the fastest's name logged; unless it is FIRST, its contest sweep (name
# indexer_<pick>_<CALL>, into $P/contest_scratch_<CALL>) and the 100-trial replay of the near-tie workloads
# (scripts/indexer_probe.sh, tag _<pick>_<CALL>) in the time left:
# indexer_side_by_side_sweep SOLUTION_OF UUIDS FIRST NAME...
indexer_side_by_side_sweep() {
  local of=$1 uuids=$2 first=$3 v best
  shift 2
  for v in "$@"; do evaluate_once "$P/indexer_${CALL}_$v.jsonl" "$IDX" "$("$of" "$v")" "$uuids" >&2; done
  evaluate_once "$P/indexer_${CALL}_${first}_again.jsonl" "$IDX" "$("$of" "$first")" "$uuids" >&2
  best=$(fastest_in_turn "$IDX" "indexer_${CALL}_" .jsonl "$@")
  echo "=== the fastest of indexer_${CALL}_*: $best" >> "${L:-$OUT/session.log}"
  [ "$best" = "$first" ] && return 0
  contest_sweep "$IDX" "$("$of" "$best")" "indexer_${best}_${CALL}" "$P/contest_scratch_${CALL}"
  step "$(left)" env PARTS=2 SEED="$("$of" "$best")" TAG="_${best}_${CALL}" bash scripts/indexer_probe.sh
}
# decode_fla_sweep DISPATCH NAME TRACES: the contest sweep of the GDN decode dispatch
# operators/$DEC/solutions/dispatch/DISPATCH.json with fla, side by side over all 54 workloads, table
# benchmarks/results/contest_NAME.md, traces under TRACES (resumed as they stand)
decode_fla_sweep() { contest_sweep "$DEC" "operators/$DEC/solutions/dispatch/$1.json" "$2" "$3" fla; }
# decode_side_by_side_sweep FIRST NAME...: the GDN decode dispatches FIRST (the one in place) and NAME... (files
# operators/$DEC/solutions/dispatch/<name>.json) side by side on the workloads of batch > 8 into
# $P/decode_<CALL>_<name>.jsonl, FIRST again last (side_by_side_again); unless FIRST is the fastest, the pick's
# decode_fla_sweep (name decode_<pick>_<CALL>, traces $P/contest_scratch_<CALL>)
decode_side_by_side_sweep() {
  local best
  best=$(side_by_side_again "$DEC" "decode_${CALL}_" .jsonl "$(axis_band "$DEC" batch_size 9 100000)" \
    "operators/$DEC/solutions/dispatch/%s.json" "$@")
  [ "$best" = "$1" ] || decode_fla_sweep "$best" "decode_${best}_${CALL}" "$P/contest_scratch_${CALL}"
}
# decode_rows: the Triton kernels of the retained GDN decode dispatches (calls DL-DR) as decode_copy_ceiling.py rows
# NAME=SOLUTION, one per line, for a script's own rows to be measured beside: mapfile -t ROWS < <(decode_rows)
decode_rows() {
  local s="operators/$DEC/solutions/seeds"
  printf '%s\n' "vtile_w8=$s/gdn_decode_vtile@BV=8,num_warps=8" "lean4=$s/gdn_decode_lean@BV=4" \
    "lean8n=$s/gdn_decode_lean@OUT_FROM_OLD=0" "lean16n=$s/gdn_decode_lean@BV=16,OUT_FROM_OLD=0"
}
# decode_cuda_pick PREVIOUS NAME=SOLUTION...: gdn_decode_cuda's GPU points (tests/test_seeds.py -m gpu), then
# decode_pick_sweep at every batch size of the workloads over decode_rows and NAME=SOLUTION... (calls DP, DQ)
decode_cuda_pick() {
  local previous=$1 rows; shift
  mapfile -t rows < <(decode_rows)
  step 200 python3 -m pytest -q -m gpu tests/test_seeds.py -k gdn_decode_cuda
  decode_pick_sweep 1,4,8,16,32,48,64 "$previous" "${rows[@]}" "$@"
}
# decode_pick_sweep BATCHES PREVIOUS NAME=SOLUTION...: GDN decode candidates side by side at the batch sizes BATCHES
# (benchmarks/decode_copy_ceiling.py, table decode_copy_ceiling_h200_<CALL>.{md,json}), the fastest checked row per
# batch size composed into operators/$DEC/solutions/dispatch/picked_<CALL>.json (benchmarks/decode_bands.py, lean
# from the new state above the largest batch size), and that dispatch's decode_fla_sweep unless it is the dispatch
# file PREVIOUS (name; "" to always sweep) byte for byte; $MIN_GAIN is the picker's --min-gain (default 0.01; calls
# DK-DM picked with 0, before the option). Calls DK-DO; their results: keep_decode_pick_results.
decode_pick_sweep() {
  local batches=$1 previous=$2 d="operators/$DEC/solutions/dispatch" rows=() r; shift 2
  for r in "$@"; do rows+=(--solution "$r"); done
  step "$(left)" python3 benchmarks/decode_copy_ceiling.py --name "$CALL" --batches "$batches" --no-fla "${rows[@]}"
  step 60 python3 benchmarks/decode_bands.py --results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.json" \
    --above "operators/$DEC/solutions/seeds/gdn_decode_lean@OUT_FROM_OLD=0" --min-gain "${MIN_GAIN:-0.01}" \
    -o "$d/picked_${CALL}.json"
  last_step_passed || return 0
  if [ -n "$previous" ] && cmp -s "$d/picked_${CALL}.json" "$d/$previous.json"; then
    echo "=== the pick is $previous again: no sweep" >> "${L:-$OUT/session.log}"
  else
    decode_fla_sweep "picked_${CALL}" "decode_picked_${CALL}" "$P/contest_scratch_${CALL}"
  fi
}
keep_decode_pick_results() {
  keep_call_results "benchmarks/results/decode_copy_ceiling_h200_${CALL}.*" "benchmarks/results/decode_bands_*${CALL}*" \
    "operators/$DEC/solutions/dispatch/picked_${CALL}.json"
}
# The contest sweep of the pick's dispatch (the pattern filled with PICK) unless PICK is KEPT (the kernel in place):
# sweep_unless_kept OP PICK KEPT PATTERN NAME SCRATCH
sweep_unless_kept() {
  [ "$2" = "$3" ] && return 0
  # shellcheck disable=SC2059  # the pattern is the format
  contest_sweep "$1" "$(printf "$4" "$2")" "$5" "$6"
}
# prefill_pick_sweep UUIDS KEPT NAME...: the GDN prefill dispatches KEPT (the retained one) and NAME... (files
# $PRE_DISPATCH/<name>.json) side by side on UUIDS (side_by_side_again: KEPT first and again last), then the pick's
# contest sweep (name prefill_<pick>_<CALL>, traces $P/contest_scratch_<CALL>) unless it is KEPT (calls FB, GC, HD)
prefill_pick_sweep() {
  local uuids=$1 kept=$2 best; shift 2
  best=$(side_by_side_again "$PRE" "prefill_${CALL}_" .jsonl "$uuids" "$PRE_DISPATCH/%s.json" "$kept" "$@")
  sweep_unless_kept "$PRE" "$best" "$kept" "$PRE_DISPATCH/%s.json" "prefill_${best}_${CALL}" "$P/contest_scratch_${CALL}"
}
# prefill_sweep_beside_retained NEW LO HI [BASELINE...]: the contest sweep of the GDN prefill dispatch
# $PRE_DISPATCH/NEW.json (with those baselines side by side; name prefill_NEW_<CALL>, traces $P/contest_scratch_<CALL>,
# resumable), then the retained dispatch ($PRE_RETAINED) on the workloads of LO <= total_seq_len < HI (where their
# code differs) into $P/prefill_<CALL>_retained.jsonl, for the side by side with the sweep's traces of that band in
# the same call (calls JB, JD)
prefill_sweep_beside_retained() {
  local new=$1 lo=$2 hi=$3; shift 3
  contest_sweep "$PRE" "$PRE_DISPATCH/$new.json" "prefill_${new}_${CALL}" "$P/contest_scratch_${CALL}" "$@"
  evaluate_once "$P/prefill_${CALL}_retained.jsonl" "$PRE" "$PRE_RETAINED" "$(prefill_band "$lo" "$hi")"
}
# prefill_fla_quick: the retained prefill dispatch and fla side by side on 13 workloads spread over the sizes (every
# 8th by total_seq_len; table contest_prefill_fla_quick_<call>)
prefill_fla_quick() {
  ONLY=$(every_nth "$PRE" total_seq_len 8) contest_sweep "$PRE" "$PRE_RETAINED" "prefill_fla_quick_${CALL}" \
    "$P/contest_quick_${CALL}" fla
}
# prefill_fla_sweeps: prefill_fla_quick, then on an H200 the sweep to adopt with fla beside it
# (prefill_sweep_beside_retained of $DISPATCH, default recurrent_one_1376_s2bv32, on 49 <= tokens < $UPPER, default
# 1,377), elsewhere the retained dispatch's whole sweep with fla beside it (call OA1 on an H100: 12.46x)
prefill_fla_sweeps() {
  prefill_fla_quick
  prefill_sweep_on_h200 fla \
    || contest_sweep "$PRE" "$PRE_RETAINED" "prefill_retained_fla_${CALL}" "$P/contest_scratch_${CALL}" fla
}
# prefill_ahead_side_by_side: the GDN prefill dispatch recurrent_ahead_461_1376_s2bv32 against
# recurrent_one_1376_s2bv32 through the harness on all workloads, interleaved per workload, resumable (call QD's name
# and traces, whatever the call: calls QD, QE)
prefill_ahead_side_by_side() {
  CANDIDATES="ahead=$PRE_DISPATCH/recurrent_ahead_461_1376_s2bv32.json" contest_sweep "$PRE" \
    "$PRE_DISPATCH/recurrent_one_1376_s2bv32.json" ahead_dispatch_qd "$P/contest_ahead_qd"
}
# prefill_long_side_by_side NAME LABEL=SOLUTION...: those candidates against the GDN prefill dispatch
# recurrent_ahead_461_1376_s2bv32 on the workloads above 1,376 tokens (30), through the harness, interleaved per
# workload; table contest_NAME_<call>, traces $P/contest_long_<call>, resumable (calls QF, QG, QI, QJ)
prefill_long_side_by_side() {
  local name=$1 long
  shift
  long=$(prefill_band 1377 100000 | tr , ' ')
  ONLY=$long CANDIDATES="$*" contest_sweep "$PRE" "$PRE_DISPATCH/recurrent_ahead_461_1376_s2bv32.json" \
    "${name}_${CALL}" "$P/contest_long_${CALL}"
}
# h200_sweeps_qf (on an H200; calls QF, QG): each resumable by any later call under a fixed name: call PA's adoption
# sweep (recurrent_one_1376_s2bv32 with fla), call QE's (recurrent_ahead_461_1376_s2bv32 with fla), then the retained
# FP8 MoE dispatch with the PyTorch reference and torch.compile interleaved per workload over all 19 workloads (table
# contest_moe_side_by_side_qf, traces $P/contest_moe_qf)
h200_sweeps_qf() {
  pa_sweep_on_h200
  qe_sweep_on_h200
  moe_side_by_side qf
}
# pa_sweep_on_h200: call PA's adoption sweep (recurrent_one_1376_s2bv32 with fla) resumed under PA's name, on an H200
pa_sweep_on_h200() {
  ( CALL=pa; prefill_sweep_on_h200 fla )
}
# qe_sweep_on_h200: call QE's adoption sweep (recurrent_ahead_461_1376_s2bv32 with fla) resumed under QE's name, on an
# H200
qe_sweep_on_h200() {
  ( CALL=qe DISPATCH=recurrent_ahead_461_1376_s2bv32; prefill_sweep_on_h200 fla )
}
# moe_side_by_side NAME: the retained FP8 MoE dispatch with the PyTorch reference and torch.compile interleaved per
# workload over all 19 workloads (table contest_moe_side_by_side_NAME, traces $P/contest_moe_NAME), resumable under
# that fixed name: qf on an H200 (calls QF-QM), h100_qk on an H100 (call QK)
moe_side_by_side() {
  contest_sweep "$MOE" "operators/$MOE/retained/solution.json" "moe_side_by_side_$1" "$P/contest_moe_$1" \
    reference torch_compile
}
# decode_side_by_side NAME: the retained GDN decode dispatch with the PyTorch reference and fla over all 54 workloads,
# interleaved per workload in one run (table contest_decode_side_by_side_NAME, traces $P/contest_decode_NAME; resumed)
decode_side_by_side() {
  contest_sweep "$DEC" "operators/$DEC/retained/solution.json" "decode_side_by_side_$1" "$P/contest_decode_$1" \
    reference fla
}
# pending_gpu_checks (calls PA, QA): the GPU checks not run since stop 58-60: the MoE seed moe_grouped_fp8_q8gl's GPU
# twins after its Gluon limits became refusals, the device ceilings through harness.timing.median_call_ms (never
# run on a GPU), and the suite files not run since stop 58's guard (profiling, device random inputs, inputs)
pending_gpu_checks() {
  GPU_K=q8gl gpu_suite tests/test_moe_q8.py tests/test_seeds.py
  step "$(upto 60)" python3 -m kernelopt.harness.ceilings --out "$OUT/ceilings_${CALL}.json"
  gpu_suite tests/harness/test_profiling.py tests/harness/test_device_random.py tests/test_inputs.py
}
# gpu_suite FILE...: `pytest -m gpu` one file per step (its start, limit and exit in the log: a cut call says where it
# stopped), each bounded by what is left before END_BY, junit XML per file under $OUT; GPU_K a `-k` expression
gpu_suite() {
  local f
  for f in "$@"; do
    step "$(left)" python3 -m pytest -v -m gpu -p no:cacheprovider --timeout 300 -rs --durations=10 \
      --junitxml="$OUT/gpu_suite_${CALL}_$(basename "$f" .py).xml" ${GPU_K:+-k "$GPU_K"} "$f"
  done
}
# prefill_sweep_on_h200 [BASELINE...]: on an H200 the next prefill sweep to adopt (prefill_sweep_beside_retained of
# dispatch $DISPATCH, default recurrent_one_1376_s2bv32, beside the retained dispatch on 49 <= tokens < $UPPER, default
# 1,377; those baselines swept beside the dispatch):
# status 0 (whatever its steps' own exits, logged by them); on another card nothing, status 1 (calls JD-KL of
# 2026-12-06 all came on H100s)
prefill_sweep_on_h200() {
  card_is H200 || return 1
  prefill_sweep_beside_retained "${DISPATCH:-recurrent_one_1376_s2bv32}" 49 "${UPPER:-1377}" "$@"
  return 0
}
# gpu0_log: the start of a one-GPU session queue (in its subshell): GPU 0, its log $L, the card and its clocks first
gpu0_log() {
  export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$L"
}
# h200_sweep_first: the start of a one-GPU session queue (gpu0_log), then on
# an H200 the prefill sweep (prefill_sweep_on_h200): status 0 when it ran (the queue then ends), 1 on another card
# (the queue goes on with its own work); a carried .whl_camp (MLflow's packed site) is unpacked beside the wheels.
h200_sweep_first() {
  gpu0_log
  prefill_sweep_on_h200 && return 0
  if [ -f .whl_camp/site.tar.xz ]; then tar -C /tmp/site -xJf .whl_camp/site.tar.xz; fi
  return 1
}
# prefill_points TOKENS:SEQS...: the GDN prefill workloads with those (total_seq_len, num_seqs), comma-separated uuids
prefill_points() { python3 scripts/pick_workloads.py points gdn_prefill_qk4_v8_d128_k_last total_seq_len,num_seqs "$@"; }
# session_setup: the common start of the gpu_session_*.sh scripts: END_BY (default 540 s), CALL (default: the
# script's suffix, gpu_session_<call>.sh), P (the profiles folder, created), the MOE, PRE and DEC definition names,
# PRE_SEEDS and PRE_DISPATCH (GDN prefill's seed and dispatch folders), PRE_RETAINED (its retained dispatch), MOE_SEEDS
# and MOE_DISPATCH (the MoE's) and NGPU (GPUs on this machine; see second_gpu / one_gpu_waits).
session_setup() {
  END_BY=${END_BY:-540}
  CALL=${CALL:-$(basename "$0" .sh | sed 's/^gpu_session_//')}
  P=benchmarks/results/profiles_v
  mkdir -p "$P"
  MOE=moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
  PRE=gdn_prefill_qk4_v8_d128_k_last
  DEC=gdn_decode_qk4_v8_d128_k_last
  PRE_SEEDS=operators/$PRE/solutions/seeds
  PRE_DISPATCH=operators/$PRE/solutions/dispatch
  PRE_RETAINED=operators/$PRE/retained/solution.json  # kept by benchmarks/adopt_retained.py
  MOE_SEEDS=operators/$MOE/solutions/seeds
  MOE_DISPATCH=operators/$MOE/solutions/dispatch
  NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
}
# second_gpu: the GPU of a script's second queue (1, or 0 on a one-GPU machine); one_gpu_waits PID: on a one-GPU
# machine, wait for the first queue (PID) before the second starts.
second_gpu() { echo $(( ${NGPU:-0} >= 2 ? 1 : 0 )); }
one_gpu_waits() { [ "${NGPU:-0}" -ge 2 ] || wait "$1"; }
# measure_space OPERATOR TABLE [ARGS...]: benchmarks/controller_efficiency.py --mode measure of OPERATOR's seed
# space on 7 spread workloads into TABLE (resumed point by point; ARGS e.g. --fix K=V ... or --retry-failed),
# bounded by what is left before END_BY.
measure_space() {
  local op=$1 table=$2; shift 2
  step "$(left)" python3 benchmarks/controller_efficiency.py --mode measure --operator "$op" --workloads 7 "$@" \
    --table "$table"
}
# finish_session PID...: wait for a session script's queues, pack once more, list what comes back.
finish_session() {
  wait "$@"
  finish_packing
  fit_out
  ls -la "$OUT"
}
# fit_out: the device tool brings back at most OUT_FILES_MAX (8) files of $OUT and drops the rest: call QA of
# 2026-12-06 wrote 10 (junit XMLs, the ceilings, a resources table) and lost its results pack and its log. Past the
# limit, every file but the results packs (results_*.tgz) and the logs (*.log) goes into $OUT/extras_<call>.tgz
# (names relative to $OUT) and is removed.
OUT_FILES_MAX=8
fit_out() {
  local list
  [ "$(find "$OUT" -type f | wc -l)" -le "$OUT_FILES_MAX" ] && return 0
  list=$(mktemp)
  ( cd "$OUT" && find . -type f ! -name 'results_*.tgz' ! -name '*.log' ! -name 'extras_*.tgz' -printf '%P\n' \
      > "$list" && tar -czf "extras_${CALL:-call}.tgz" -T "$list" && xargs -d '\n' -a "$list" rm -f )
  find "$OUT" -mindepth 1 -type d -empty -delete
  rm -f "$list"
}
# left: seconds left before END_BY (default 540 s after the calling script started), 10 s kept for packing.
left() { echo $(( ${END_BY:-540} - SECONDS - 10 )); }
# upto N: N seconds, or what is left when less (a step's own limit inside the call's)
upto() { local l; l=$(left); echo $(( l < $1 ? l : $1 )); }
# keep_packed NAME 'PATTERN'...: until the call ends, pack the paths PATTERN... match into $OUT/NAME.tgz every
# 30 s (written aside, then renamed): a call cut at the device tool's limit (which is the device time left when
# that is less than timeout_s) still brings back the last whole pack. Calls M and O of 2026-11-30 lost their
# traces that way. Quote glob patterns: they are matched at each pack (files written later are picked up);
# paths that do not exist yet are skipped.
keep_packed() {
  PACK_NAME=$1; shift
  PACK_PATTERNS=""
  local pat
  for pat in "$@"; do  # absolute paths (under $OUT) come back by themselves; packed, they unpacked as root/out/...
    case "$pat" in /*) ;; *) PACK_PATTERNS="$PACK_PATTERNS $pat" ;; esac
  done
  ( while sleep 30; do pack_once; done ) &
  PACKER=$!
}
# keep_call_results [PATTERN...]: keep_packed of the call's usual results (its traces folder $P, contest tables, span
# anatomies and Nsight Compute sections named for the call) and any further patterns, into results_<call>.tgz (call
# CC of 2026-12-02 lost its ncu_sections files: they were not in the pack)
keep_call_results() {
  keep_packed "results_${CALL}" "$P" "benchmarks/results/contest_*_${CALL}.md" \
    "benchmarks/results/span_anatomy_*${CALL}*" "benchmarks/results/ncu_sections_*${CALL}*" "$@"
}
# pack_once: one pack of keep_packed's patterns into $OUT/<name>.tgz. tar exits 1 when a file grew while read
# (a trace being appended): that pack is still whole up to there.
pack_once() {
  # shellcheck disable=SC2086  # word splitting and globbing of the patterns are wanted here
  tar --ignore-failed-read -czf "$OUT/$PACK_NAME.partial" $PACK_PATTERNS 2>/dev/null
  [ $? -le 1 ] && mv -f "$OUT/$PACK_NAME.partial" "$OUT/$PACK_NAME.tgz"
}
# finish_packing: end keep_packed's loop and pack once more (the call's final results)
# (a script that never called keep_packed still gets its profiles folder back, as results_<call>.tgz: call AR of
# 2026-12-01 lost its traces to an unset packer)
finish_packing() {
  if [ -n "${PACKER:-}" ]; then kill "$PACKER" 2>/dev/null; wait "$PACKER" 2>/dev/null; fi
  PACK_NAME=${PACK_NAME:-results_${CALL:-call}}; PACK_PATTERNS=${PACK_PATTERNS:-benchmarks/results/profiles_v}
  pack_once; rm -f "$OUT"/*.partial
}
# The contest sweeps still owed to issue 3, split over two GPUs: sweeps_gpu0 the DSA indexer, GDN decode's
# torch.compile (100-220 s of compilation per batch size), then GDN prefill's torch.compile (alone: at 1-3 s a
# call on long rows it would hold fla back, contest.py interleaves candidates per workload); sweeps_gpu1 GDN
# decode's reference, fla and retained kernel, then GDN prefill's reference, fla and retained kernel.
# Each resumes into benchmarks/results/traces_contest_h200 (a finished sweep is skipped in seconds). Between
# calls, unpack each call's results into the checkout with scripts/unpack_results.py (the device copies the
# checkout's tracked traces over the machine's: 2026-11-30 call T redid call S's pairs). GDN prefill as of
# 2026-11-30 call U: reference and retained 94/100, fla 95, torch.compile 81 (~10 GPU-minutes left).
sweeps_gpu0() {
  step "$(left)" bash scripts/contest_resume.sh dsa_indexer
  SUFFIX=_gpu0 EXTRA="--baselines torch_compile --no-retained" step "$(left)" bash scripts/contest_resume.sh gdn_decode
  SUFFIX=_gpu0 EXTRA="--baselines torch_compile --no-retained" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
}
sweeps_gpu1() {
  SUFFIX=_gpu1 EXTRA="--baselines reference fla" step "$(left)" bash scripts/contest_resume.sh gdn_decode
  SUFFIX=_gpu1 EXTRA="--baselines reference fla" step "$(left)" bash scripts/contest_resume.sh gdn_prefill
}
# campaign OPERATOR NAME SAMPLE [OVERRIDE...]: one bounded `kernelopt optimize` (offline generator, evidence
# controller, SAMPLE workloads, at most CAMP_S seconds of decisions and fewer when less is left before END_BY: 200 s
# stay for the last evaluation, the registry export and the summary; OVERRIDEs are more Hydra overrides, e.g.
# "campaign.include=[...]", no spaces inside one), its champion exported from the registry to
# $P/NAME_campaign_champion.json and summarised (benchmarks/results/campaign_NAME_CALL_h200.{md,json}); skipped
# once the champion file exists.
campaign() {
  local op=$1 name=$2 sample=$3; shift 3
  [ -f "$P/${name}_campaign_champion.json" ] && return 0
  local wall=$(( ${CAMP_S:-200} < $(left) - 200 ? ${CAMP_S:-200} : $(left) - 200 ))
  [ "$wall" -lt 30 ] && { echo "=== $(date +%T) skipped, ${wall}s of campaign left: $name" | tee -a "${L:-$OUT/session.log}"; return 0; }
  local args="operator=$op operator.workload_sample=$sample controller.max_candidates=12 controller.max_rounds=8"
  args="$args controller.wall_clock_s=$wall campaign.name=h200_$name $*"
  step $(( wall + 80 )) python3 -m kernelopt.cli.main optimize $args
  step 60 python3 -m kernelopt.cli.main export "$op" --alias champion -o "$P/${name}_campaign_champion.json"
  step 60 python3 benchmarks/campaign_summary.py "$op" --name "campaign_${name}_${CALL}_h200" \
    --command "kernelopt optimize $args ($0, call $CALL)"
}
if [ "${1:-}" = session ]; then session_setup; fi
