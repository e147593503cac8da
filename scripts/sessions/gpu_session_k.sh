#!/usr/bin/env bash
# Device call K (2026-11-30, nvidia-h200-x2), after call J showed timed calls ~2x slower once a profile had run
# inside the worker (profiles now run in child processes, ncu with --clock-control none). GPU 0: the GPU profiling
# tests, the GDN decode retained kernel evaluated with profiles again, the short profile-backed GDN decode campaign
# again, then the indexer contest resumed. GPU 1: the GDN decode contest resumed (torch.compile no longer REJECTED
# for tqdm's monitor thread).
# Usage (carry .whl):  bash scripts/sessions/gpu_session_k.sh
CALL=k TAG=_k GPU1_OPS="gdn_decode gdn_prefill" END_BY=${END_BY:-515} exec bash "$(dirname "$0")/gpu_session_j.sh"
