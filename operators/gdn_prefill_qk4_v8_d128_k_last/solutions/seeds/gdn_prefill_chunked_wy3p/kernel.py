"""Gated Delta Net prefill: the ``gdn_prefill_chunked_wy3v`` seed's three kernels and call, each kernel with its own
launch options.

wy3v launches its WY prep kernel and its state walk with one ``num_warps`` (and all three kernels with one
``num_stages``), and its space's register constraints kept the output kernel at 8 warps for ``C=64``. Timed alone
on the H200 (2026-12-01 call BD, ``benchmarks/gdn_prefill_kernel_sweep.py --lengths 8192:20``,
``benchmarks/results/gdn_prefill_kernel_sweep_h200.md``), the best launch options differ per kernel:

* prep at ``C=64``: 8 warps (249 registers, 0.204 ms); 16 warps spill (0.310 ms);
* state walk at ``C=64``: ``BV=32`` with 4 warps 0.163 ms (255 registers, 6 spills) against 0.229 ms at 8 warps;
* output at ``C=64``: ``BV_O=64`` with 4 warps 0.120 ms (255 registers, no spills) against 0.185 ms at 8 warps.

Here ``num_warps`` is the prep kernel's, ``num_warps_h`` the state walk's, ``num_warps_o`` the output kernel's, and
``MAXNREG`` (0: none) caps the prep kernel's registers (Triton's ``maxnreg``). ``wy3v.py`` is that seed's
``kernel.py`` (``wy3.py`` wy3's, ``base.py`` the WY seed's): importing it installs wy3v's kernels, through
compiled launchers, into this package's copy of the wy3 module; this module wraps each of them in a launcher that
sets its options from ``PARAMS`` at call time. The math is wy3v's; under the interpreter the results are bit for
bit wy3v's, on a GPU a different warp count may change the dots' summation order (tf32 rounding).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

import os

from . import wy3 as _wy3
from . import wy3v as _wy3v

PARAMS = {"C": 64, "BV": 32, "BV_O": 64, "num_warps": 8, "num_warps_h": 4, "num_warps_o": 4, "num_stages": 1, "MAXNREG": 0, "PRECISION": "tf32"}  # kernelopt:params

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"  # the interpreter takes no register cap


class _Options:
    """``launcher[grid](...)`` with ``num_warps`` (and ``maxnreg``, when set) taken from ``PARAMS`` at call time."""

    def __init__(self, launcher, warps: str, cap: str = "") -> None:
        self.launcher, self.warps, self.cap = launcher, warps, cap

    def __getitem__(self, grid):
        inner = self.launcher[grid]

        def launch(*args, **kwargs):
            kwargs["num_warps"] = int(PARAMS[self.warps])
            if self.cap and int(PARAMS[self.cap]) > 0 and not _INTERPRET:
                kwargs["maxnreg"] = int(PARAMS[self.cap])
            return inner(*args, **kwargs)
        return launch


# this package's own module objects (wy3v's import above already replaced wy3's kernels with its own)
_wy3v.PARAMS = PARAMS
_wy3.PARAMS = PARAMS
_wy3._wy_prep_kernel = _Options(_wy3._wy_prep_kernel, "num_warps", "MAXNREG")
_wy3._wy_h_kernel = _Options(_wy3._wy_h_kernel, "num_warps_h")
_wy3._wy_o_kernel = _Options(_wy3._wy_o_kernel, "num_warps_o")


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32), as wy3v."""
    _wy3.run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)
