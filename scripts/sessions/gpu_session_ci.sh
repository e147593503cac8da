#!/usr/bin/env bash
# Device call CI (2026-12-02), in this order:
#   1. MoE up to 80 tokens (16 workloads), side by side: the retained dispatch (call CH: the short point q8rg at
#      BLOCK_N 128, 4 warps, 4 stages) against that point at 3 / 5 stages and at GEMM2 widths BLOCK_N2 64 / 256 (call
#      CH: BLOCK_N 128 took GEMM2 at 59 tokens from 2.54 to 3.77 TB/s; the stage count and GEMM2's width were last
#      measured at BLOCK_N 64, call BY). The retained one again at the end.
#   2. MoE at 901 tokens (the 81-4,096 band's one workload), side by side: q8rt's pointer GEMMs (retained) against
#      q8tw's descriptor GEMMs from 81 tokens over the bound grid (no host sync) and over the exact grid (one sync).
#      Why: call CH's anatomy at 901 tokens, GEMM2 (q8's pointer kernel, 8 warps) 190.6 us for ~470 MB of W2
#      (2.5 TB/s), GEMM1 276 us; q8tw's GEMM2 at 4 warps took 871 -> 575 us at 14,107 tokens (call CF). The 901-token
#      call spreads 0.60-0.75 ms between runs: the retained one runs first and last.
#   3. If a band's variant is faster than the retained point: the dispatch with both bands' fastest (composed here,
#      copied to $OUT) and its contest sweep.
# (Its side by sides written as side_by_side_again after the call: the same steps and trace files.)
# Usage (carry .whl):  CALL=ci END_BY=560 bash scripts/sessions/gpu_session_ci.sh
source "$(dirname "$0")/../gpu_env.sh" session
MD=$MOE_DISPATCH
SD=$MOE_SEEDS
keep_call_results
( export CUDA_VISIBLE_DEVICES=0; L="$OUT/session_${CALL}_gpu0.log"
  SHORT=$(axis_band $MOE seq_len 1 81)
  MID=$(axis_band $MOE seq_len 81 4097)
  SB=$(side_by_side_again $MOE moe_ci_ _short.jsonl "$SHORT" "$MD/q8rg_m16n128%s_q8rt_m64s4f_q8tw4r1_80_4096.json" \
    s4f s3f s5f n2_64s4f n2_256s4f)
  MB=$(side_by_side_again $MOE moe_ci_ _901.jsonl "$MID" "$MD/q8rg_m16n128s4f_%s.json" q8rt_m64s4f_q8tw4r1_80_4096 \
    q8tw4r1b_q8tw4r1_80_4096 q8tw4r1_80)
  declare -A SHORTP=([s4f]="num_stages=4" [s3f]="num_stages=3" [s5f]="num_stages=5"
                     [n2_64s4f]="num_stages=4,BLOCK_N2=64" [n2_256s4f]="num_stages=4,BLOCK_N2=256")
  TW="$SD/moe_grouped_fp8_q8tw@NUM_WARPS2=4,ROUTE_WARPS=1"
  declare -A MIDP=([q8rt_m64s4f_q8tw4r1_80_4096]="$SD/moe_grouped_fp8_q8rt@num_stages=4,LAUNCH=fast"
                   [q8tw4r1b_q8tw4r1_80_4096]="$TW,LONG_GRID=bound" [q8tw4r1_80]="$TW")
  if [ "$SB" != s4f ] || [ "$MB" != q8rt_m64s4f_q8tw4r1_80_4096 ]; then
    COMBO=$MD/q8rg_m16n128${SB}_ci_${MB}.json
    step 60 python3 -m kernelopt.cli.main dispatch $MOE --axis seq_len \
      --band "$SD/moe_grouped_fp8_q8rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,${SHORTP[$SB]}" \
      --band "${MIDP[$MB]}" --band "$TW" --upper 80 --upper 4096 -o "$COMBO"
    cp "$COMBO" "$OUT/"
    contest_sweep $MOE "$COMBO" moe_combo_ci "$P/contest_scratch_ci"
  fi
) &
finish_session $!
