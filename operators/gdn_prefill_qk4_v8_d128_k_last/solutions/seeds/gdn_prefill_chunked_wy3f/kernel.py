"""Gated Delta Net prefill: the ``gdn_prefill_chunked_wy3`` seed (``wy3.py`` is that seed's ``kernel.py``; ``base.py``
the WY seed's, which ``wy3.py`` imports as ``.base``) with its three launches sent through ``fastlaunch.py``.

The wy3 call does every host step (checks, scratch allocations) before its first launch, then issues the WY prep,
the state walk and the parallel output kernel. On short calls its kernels run for a few microseconds and the
official span, first kernel start to last kernel end, measures the host's time to issue the second and third
launches (H200 host: 20-34 us each through ``kernel[grid](...)``, 12-20 us through the compiled launcher). Here this
package's copy of the wy3 module gets fast launchers for its three kernels and this seed's ``PARAMS``, and ``run``
is wy3's: the same kernels, arguments and results (under the Triton interpreter every launch takes the JIT path).
Entry point: ``run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)`` (DPS).
"""

from . import wy3 as _wy3
from .fastlaunch import fast

PARAMS = {"C": 64, "BV": 32, "BV_O": 64, "num_warps": 8, "num_warps_o": 8, "num_stages": 1, "PRECISION": "tf32"}  # kernelopt:params

# this package's own module objects: the wy3 seed's package (and its traces' content hash) is untouched
_wy3.PARAMS = PARAMS
_wy3._wy_prep_kernel = fast(_wy3._wy_prep_kernel)
_wy3._wy_h_kernel = fast(_wy3._wy_h_kernel)
_wy3._wy_o_kernel = fast(_wy3._wy_o_kernel)


def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state) -> None:
    """Write the prefill output ([N,8,128] bf16) and the final k-last state ([S,8,128,128] fp32), as wy3."""
    _wy3.run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state)
