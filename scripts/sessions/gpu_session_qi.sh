#!/usr/bin/env bash
# Device call QI (prepared 2026-12-07, stop 65). Call QH (H100): at 8,192 tokens in 20-57 sequences the dispatch's
# wy3h kernels take 215-221 us, prep 57 / walk 98-100 / output 57-58 us, with the walk and output at 60-62 % of DRAM
# throughput: they write and read every chunk's state (C 32: 256 chunks x 8 heads x 128 x 128 bf16 = 67 MB each way),
# three times the call's own ~95 MB. The token-recurrent kernel keeps the state on chip (no per-chunk states), at the
# price of a serial walk as long as the longest sequence. So, on the 30 workloads above 1,376 tokens through the
# harness, interleaved per workload: the recurrent seed (defaults BV 8 / 4 warps, BV 16, BV 8 / 1 warp) against the
# dispatch recurrent_ahead_461_1376_s2bv32; its traces say where (by sequences and their lengths) it wins.
# First, only on an H200: call PA's adoption sweep resumed (4 workloads left).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qi.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_pa.md"
REC="$PRE_SEEDS/gdn_prefill_recurrent"
( gpu0_log
  ( CALL=pa; prefill_sweep_on_h200 fla ) || true  # on an H200 only (status 1 elsewhere)
  prefill_long_side_by_side recurrent_long "rec=$REC" "rec_bv16=$REC@BV=16" "rec_w1=$REC@num_warps=1"
) &
finish_session $!
