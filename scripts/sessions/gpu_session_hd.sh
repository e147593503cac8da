#!/usr/bin/env bash
# Device call HD (2026-12-05): call GA's question (its script, prepared 2026-12-04 and never run, is replaced by this
# one) with the prep kernel of call GB in every leaf. Does GDN prefill's mid
# band (402-1,376 tokens) gain from the pipelined state walk (s2 bv32 leaves, as the long band)? The retained dispatch
# (recurrent_wy3hh_1376_s2bv32: the halves prep, the old state walk up to 1,376 tokens) against
# recurrent_wy3hh_s2_seqs16_bv32_401 (the same leaves as the retained one's long band from 402 tokens on; composed with
# `kernelopt dispatch gdn_prefill_qk4_v8_d128_k_last --axis total_seq_len --band <seeds>/gdn_prefill_recurrent
# --band <dispatch>/wy3hh_s2_seqs16_bv32.json --upper 401`) on the 11 mid-band workloads through `kernelopt
# evaluate`, the retained one first and again last (its drift bounds the ratio); then the contest sweep of the faster
# unless it is the retained one (name prefill_<pick>_hd; adopt with benchmarks/adopt_retained.py only if it wins
# there too).
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=hd END_BY=540 bash scripts/sessions/gpu_session_hd.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  uuids=$(prefill_points 461:2 525:1 574:2 661:3 832:4 959:4 973:3 983:2)
  prefill_pick_sweep "$uuids" recurrent_wy3hh_1376_s2bv32 recurrent_wy3hh_s2_seqs16_bv32_401
) &
finish_session $!
