#!/usr/bin/env bash
# Device call QR (prepared 2026-12-07, stop 68): the GPU checks of every seed (`pytest -m gpu tests/test_seeds.py`:
# each seed's default and listed points against its fp32 reference on the card), not run whole since stop 58 (calls
# LA-LD of 2026-12-06 reached 1 of the 46 before their time ran out), bounded by SUITE_BY (default 400 s into the
# call); then, on an H200, the retained GDN decode dispatch side by side with the PyTorch reference and fla over all 54
# workloads in one run (the README's decode row compares runs of 2026-11-29/30 and 2026-12-03), resumable under the
# fixed name qr on any later call.
# Usage (carry .whl_eval):  WHEELS=.whl_eval CALL=<call> END_BY=<device time left - 150> bash scripts/sessions/gpu_session_qr.sh
source "$(dirname "$0")/../gpu_env.sh" session
keep_call_results "benchmarks/results/contest_*_qr.md"
( gpu0_log
  ( END_BY=$(( ${SUITE_BY:-400} < END_BY ? ${SUITE_BY:-400} : END_BY )); gpu_suite tests/test_seeds.py )
  if card_is H200; then
    CALL=qr decode_side_by_side qr
  fi
) &
finish_session $!
