#!/usr/bin/env bash
# Device call DX (2026-12-03), after call DW: there q8sk up to 16 tokens at SPLIT_K 8 read 0.65 / 0.80 of the retained
# dispatch at 1 / 7 tokens but 1.08-1.12 at 14-16 (more programs than the GPU holds once 11-13 experts have rows), so
# the band here ends at 7 tokens: side by side over the 5 workloads of 1-16 tokens, the retained dispatch against
# solutions/dispatch/q8sk<k>_7_retained.json (q8sk at the retained short point with SPLIT_K 8 / 14 up to 7 tokens, the
# retained dispatch above), the retained one again last; when one wins, its contest sweep and the retained
# dispatch's, in that order, on the same machine instance.
# Usage (carry .whl_camp):  WHEELS=.whl_camp CALL=dx END_BY=400 bash scripts/sessions/gpu_session_dx.sh
source "$(dirname "$0")/../gpu_env.sh" session
PAT="$MOE_DISPATCH/%s.json"
RET=q8rg_m16n128n2_64s4f_ci_q8s2g3b_q8s2g3_80_4096
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  uuids=$(axis_band "$MOE" seq_len 1 17)
  BEST=$(side_by_side_again "$MOE" moe_dx_ _short.jsonl "$uuids" "$PAT" $RET q8sk8_7_retained q8sk14_7_retained)
  if [ "$BEST" != $RET ]; then
    contest_sweep $MOE "$(printf "$PAT" "$BEST")" "moe_${BEST}_dx" "$P/contest_scratch_dx_sk"
    contest_sweep $MOE "$(printf "$PAT" $RET)" moe_retained_dx "$P/contest_scratch_dx_ret"
  fi
) &
finish_session $!
