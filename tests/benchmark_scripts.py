"""Running a benchmark script in a child process as a user would, for the tests of scripts that compile for sm_90
here (``--compile-only``) or refuse the CPU: without ``TRITON_INTERPRET`` (other tests set it in this process)
unless ``interpret``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_script(script: str, *args: str, interpret: bool = False, timeout: int = 600) -> subprocess.CompletedProcess:
    """``python <script> <args>`` from the repository root, output captured, never raising on its exit status."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    return subprocess.run([sys.executable, script, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
